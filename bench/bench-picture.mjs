/**
 * The picture, marks and views the vision benchmarks draw (bench/vision.mjs,
 * bench/png-encoders.mjs, bench/vision-timeline.mjs): a 4000×3000 JPEG with structure at every
 * scale, 50 marks over it, and a map, a close-up and a 9-tile sheet of it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const W = 4000;
export const H = 3000;

/** A 4000×3000 picture with structure at every scale (gradients and a fine grid), as JPEG. */
export async function makePicture(sharp) {
  const pixels = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 3;
      const grid = x % 50 < 2 || y % 50 < 2 ? 60 : 0;
      pixels[i] = ((x * 255) / W + grid) & 255;
      pixels[i + 1] = ((y * 255) / H + grid) & 255;
      pixels[i + 2] = (((x ^ y) & 255) >> 1) + 64;
    }
  }
  return sharp(pixels, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** The 50 marks: points of several radii and boxes of several sizes, in every palette colour. */
export function fiftyMarks(fc, address) {
  const colours = fc.PALETTE;
  const marks = Array.from({ length: 50 }, (_, i) => {
    const x = 80 + ((i * 797) % (W - 400));
    const y = 80 + ((i * 577) % (H - 400));
    const colour = colours[i % colours.length];
    return i % 3 === 2
      ? { at: `${x},${y},${x + 150 + (i % 5) * 40},${y + 100 + (i % 4) * 30}`, colour }
      : { at: `${x},${y}`, r: 20 + (i % 6) * 8, colour };
  });
  return fc.applyMarkArgs(fc.emptyRecord(address), { marks }, { width: W, height: H }).record;
}

/**
 * `record` with mark #7 (a point, in every view drawn) moved `by` pixels right: the repeated views'
 * "another view", whose overlay no view drew before when `by` grows each time.
 */
export function withSevenMoved(record, by) {
  return {
    ...record,
    marks: record.marks.map(mark =>
      mark.id === 7 && mark.kind === 'point' ? { ...mark, x: mark.x + by } : mark
    )
  };
}

/** The views drawn: the whole picture, a close-up of mark #7, and a sheet of marks #1–#9. */
export const VIEW_SPECS = {
  map: { kind: 'map' },
  closeup: { kind: 'closeup', at: '#7' },
  sheet: { kind: 'sheet', at: ['#1', '#2', '#3', '#4', '#5', '#6', '#7', '#8', '#9'] }
};

/**
 * The picture written as `picture.jpg` in the folder `work` and loaded as the figure server
 * loads it (`fc`: the bundled sources, with `loadPicture`), with its 50 marks.
 */
export async function benchPicture(fc, sharp, work) {
  const jpeg = await makePicture(sharp);
  writeFileSync(join(work, 'picture.jpg'), jpeg);
  const ctx = { root: work, hideHidden: true, signal: new AbortController().signal };
  const picture = await fc.loadPicture({ address: 'picture.jpg' }, ctx);
  return { jpeg, picture, record: fiftyMarks(fc, 'picture.jpg') };
}
