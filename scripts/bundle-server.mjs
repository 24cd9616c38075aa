/**
 * Bundle the figure server and the `figure-chat` program into the Python package, with the native
 * modules it needs (sharp, resvg, @napi-rs/image and their prebuilt binaries) and its font, so that a user never
 * runs npm. Also builds `dist/tools.cjs`, the `jupyterlab-figure-chat/tools` subpath export.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const top = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(top, 'package.json'), 'utf8'));
const out = join(top, 'jupyterlab_figure_chat', 'figure_server');
const NATIVE = ['sharp', '@resvg/resvg-js', '@napi-rs/image'];

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// esbuild is required only when the server runs from source without its bundled worker
// (src/server/svg/svg.ts); the bundle always has the worker beside it, so it never loads esbuild.
const server = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: [...NATIVE, 'esbuild'],
  define: { __FIGURE_CHAT_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning'
};

await build({
  ...server,
  entryPoints: [join(top, 'src/server/main.ts')],
  outfile: join(out, 'figure-chat.cjs'),
  banner: { js: '#!/usr/bin/env node' }
});

// The SVG check pool's worker thread, found beside figure-chat.cjs at run time.
await build({
  ...server,
  entryPoints: [join(top, 'src/server/svg/worker.ts')],
  outfile: join(out, 'svg-worker.cjs')
});

await build({
  entryPoints: [join(top, 'src/tools/index.ts')],
  outfile: join(top, 'dist', 'tools.cjs'),
  bundle: true,
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'es2022',
  format: 'cjs',
  logLevel: 'warning'
});

/** Copy a package and, recursively, the dependencies it declares that are installed. */
function copyPackage(name, seen) {
  if (seen.has(name)) {
    return;
  }
  const from = join(top, 'node_modules', name);
  if (!existsSync(from)) {
    return; // an optional dependency for another platform
  }
  seen.add(name);
  cpSync(from, join(out, 'node_modules', name), { recursive: true, dereference: true });
  const meta = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
  for (const dep of Object.keys({ ...meta.dependencies, ...meta.optionalDependencies })) {
    copyPackage(dep, seen);
  }
}
const seen = new Set();
for (const name of NATIVE) {
  copyPackage(name, seen);
}

mkdirSync(join(out, 'fonts'), { recursive: true });
for (const font of [
  'DejaVuSans.ttf',
  'DejaVuSans-Bold.ttf',
  'DejaVuSerif.ttf',
  'DejaVuSansMono.ttf'
]) {
  cpSync(join(top, 'node_modules/dejavu-fonts-ttf/ttf', font), join(out, 'fonts', font));
}
process.stdout.write(`figure server bundled into ${out} with ${seen.size} packages\n`);
