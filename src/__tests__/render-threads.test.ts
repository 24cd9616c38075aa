import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { bundleForChild } from './helpers/child-bundle';

/** A child Node that loads the renderer and says how many threads libvips gives a render. */
const CHILD = `
const sharp = require('sharp');
const { RENDER_THREADS } = require('./render.cjs');
process.stdout.write(JSON.stringify({ threads: sharp.concurrency(), expected: RENDER_THREADS }));
`;

describe('libvips threads per render', () => {
  let work: string;

  beforeAll(() => {
    work = bundleForChild('fc-threads-', "export * from './src/server/render/render';", CHILD);
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('are the same with and without the allocator variable the figure server runs with', () => {
    // sharp picks 1 thread on glibc, or one per core once MALLOC_ARENA_MAX is set: the benchmark
    // and the tests measured something else than the figure server ran.
    const run = (extra: Record<string, string>): { threads: number; expected: number } => {
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', ...extra };
      if (!('MALLOC_ARENA_MAX' in extra)) {
        delete env.MALLOC_ARENA_MAX;
      }
      const child = spawnSync(process.execPath, [join(work, 'child.cjs')], {
        cwd: work,
        encoding: 'utf8',
        timeout: 30_000,
        env
      });
      return JSON.parse(child.stdout) as { threads: number; expected: number };
    };
    const plain = run({});
    const server = run({ MALLOC_ARENA_MAX: '2' });
    expect(plain.threads).toBe(plain.expected);
    expect(server.threads).toBe(server.expected);
    expect(plain.expected).toBe(2);
  }, 60_000);
});
