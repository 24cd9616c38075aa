import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { bundleForChild } from './helpers/child-bundle';

/**
 * A child Node with `--expose-gc`, as the figure server runs: one view is rendered, the caches let
 * go of it, and nothing else happens. An idle process has no reason to collect, so the view is only
 * ever finalized if the render queue collects once it has gone idle.
 */
const CHILD = `
const sharp = require('sharp');
const { renderView, clearRenderCaches, IDLE_COLLECT_MS } = require('./render.cjs');
const { applyMarkArgs, emptyRecord } = require('./render.cjs');
const registry = new FinalizationRegistry(() => {
  process.stdout.write('collected');
  process.exit(0);
});
async function renderAndForget() {
  const bytes = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 90, g: 90, b: 90 } } }).png().toBuffer();
  const picture = { address: 'p.png', bytes, sha256: 'a'.repeat(64), width: 800, height: 600, format: 'png' };
  const record = applyMarkArgs(emptyRecord('p.png'), { marks: [{ at: '100,100', r: 20 }] }, picture).record;
  registry.register(await renderView(picture, { kind: 'map' }, record), 'view');
  clearRenderCaches();
}
renderAndForget().then(() => {
  setTimeout(() => {
    process.stdout.write('still held');
    process.exit(1);
  }, IDLE_COLLECT_MS + 4000);
});
`;

describe('render queue when idle', () => {
  let work: string;

  beforeAll(() => {
    work = bundleForChild(
      'fc-idle-',
      "export * from './src/server/render/render';\n" +
        "export { IDLE_COLLECT_MS } from './src/server/render/queue';\n" +
        "export { applyMarkArgs, emptyRecord } from './src/tools/vision';",
      CHILD
    );
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('lets V8 collect finished views once renders have stopped (with --expose-gc)', () => {
    const run = (flags: string[]): string =>
      spawnSync(process.execPath, [...flags, join(work, 'child.cjs')], {
        cwd: work,
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, NODE_OPTIONS: '' }
      }).stdout;
    expect(run(['--expose-gc'])).toBe('collected');
    // No control run without the flag: V8 may still collect an idle process on its own now and
    // then (seen on a loaded CI machine), so "still held" cannot be asserted reliably.
  }, 60_000);
});
