/**
 * A folder flipped to a symlink (and back) while pictures are requested must never make the
 * figure server read outside the Jupyter root: the file is opened once and the descriptor, not
 * the path, is checked and read.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import sharp from 'sharp';

import { HttpError } from '../server/http/http';
import { pictureInfoRoute } from '../server/pictures/pictures';

/** Flips `folder` between a real folder and a symlink to `outside` until told to stop. */
const FLIPPER = `
const { renameSync, symlinkSync, unlinkSync } = require('node:fs');
const { workerData } = require('node:worker_threads');
const { folder, parked, outside, stop } = workerData;
const flag = new Int32Array(stop);
let flips = 0;
while (Atomics.load(flag, 0) === 0) {
  renameSync(folder, parked);
  symlinkSync(outside, folder);
  unlinkSync(folder);
  renameSync(parked, folder);
  flips++;
}
Atomics.store(flag, 1, flips);
`;

async function png(width: number, colour: string): Promise<Buffer> {
  return sharp({ create: { width, height: 8, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

const digest = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('a folder swapped for a symlink while pictures are read', () => {
  let base: string;

  beforeAll(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'fc-swap-')));
  });

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('reads the outside file 0 times in thousands of requests', async () => {
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    mkdirSync(join(root, 'd'), { recursive: true });
    mkdirSync(outside);
    const inside = await png(8, '#ff0000');
    const secret = await png(16, '#0000ff');
    writeFileSync(join(root, 'd', 'p.png'), inside);
    writeFileSync(join(outside, 'p.png'), secret);

    const stop = new SharedArrayBuffer(8);
    const flipper = new Worker(FLIPPER, {
      eval: true,
      workerData: { folder: join(root, 'd'), parked: join(root, 'parked'), outside, stop }
    });
    const ctx = { root, hideHidden: true, signal: new AbortController().signal };
    const seen = { inside: 0, outside: 0, refused: 0, crashed: 0 };
    const deadline = Date.now() + 20_000;
    let requests = 0;
    try {
      const client = async (): Promise<void> => {
        while (requests < 4000 && Date.now() < deadline) {
          requests++;
          try {
            const answer = await pictureInfoRoute({ address: 'd/p.png' }, ctx);
            const { sha256 } = (answer as { json: { sha256: string } }).json;
            if (sha256 === digest(secret)) {
              seen.outside++;
            } else if (sha256 === digest(inside)) {
              seen.inside++;
            }
          } catch (error) {
            // Refused while the folder was a symlink or missing, with an answer the client reads.
            if (error instanceof HttpError) {
              seen.refused++;
            } else {
              seen.crashed++;
            }
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, client));
    } finally {
      Atomics.store(new Int32Array(stop), 0, 1);
      await new Promise(resolve => flipper.once('exit', resolve));
    }
    const flips = new Int32Array(stop)[1];
    expect(flips).toBeGreaterThan(100);
    expect(requests).toBeGreaterThanOrEqual(1000);
    expect(seen.inside).toBeGreaterThan(0);
    expect(seen.outside).toBe(0);
    expect(seen.crashed).toBe(0);
  });
});
