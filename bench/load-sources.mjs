/**
 * Load Figure Chat's TypeScript sources in a benchmark: bundled on the fly with esbuild and
 * written under node_modules/.cache, so the native and font packages (kept external) resolve
 * from this checkout's node_modules, as they do for the built figure server.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

/** The repository's top folder. */
export const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

const require = createRequire(import.meta.url);

/**
 * Bundle `exports` (lines such as `export * from './src/tools/vision';`, relative to the repo) as
 * `<name>.cjs` and load it.
 */
export async function loadSources(name, exports) {
  const result = await build({
    stdin: { contents: exports.join('\n'), resolveDir: repo, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['sharp', '@resvg/resvg-js', '@napi-rs/image', 'saxes', 'zod', 'dejavu-fonts-ttf'],
    write: false,
    logLevel: 'error'
  });
  const file = join(repo, 'node_modules', '.cache', 'figure-chat-bench', `${name}.cjs`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, result.outputFiles[0].text);
  return require(file);
}
