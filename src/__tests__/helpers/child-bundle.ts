/**
 * Server modules bundled for a child Node process, for tests whose subject is process-wide (the
 * allocator, libvips threads, garbage collection): the child loads `render.cjs` next to its script.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { buildSync } from 'esbuild';

const repo = join(__dirname, '..', '..', '..');

/**
 * Bundle `contents` (TypeScript re-exports, resolved from the repository root) as `render.cjs` in a
 * new folder under node_modules/.cache, write `child` beside it as `child.cjs`, and return the folder.
 */
export function bundleForChild(prefix: string, contents: string, child: string): string {
  // The folder exists only once something else made it (the SVG worker does); on a clean
  // checkout, with a fresh jest cache ordering suites differently, this may run first.
  const cache = join(repo, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(cache, prefix));
  buildSync({
    stdin: { contents, resolveDir: repo, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['sharp', '@resvg/resvg-js', '@napi-rs/image', 'saxes', 'zod', 'dejavu-fonts-ttf'],
    outfile: join(work, 'render.cjs'),
    logLevel: 'error'
  });
  writeFileSync(join(work, 'child.cjs'), child);
  return work;
}
