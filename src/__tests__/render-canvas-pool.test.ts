import sharp from 'sharp';

import {
  borrowCanvas,
  canvasPoolStats,
  emptyCanvasPool,
  POOLED_CANVASES,
  returnCanvas
} from '../server/canvas-pool';
import { encodePng } from '../server/png-encode';
import type { Picture } from '../server/pictures';
import { clearRenderCaches, renderView, type RenderedView } from '../server/render';
import { applyMarkArgs, emptyRecord, type ViewSpec } from '../tools/vision';

describe('canvas pool', () => {
  beforeEach(() => emptyCanvasPool());

  it('lends a canvas to one borrower at a time, and again only once it is given back', async () => {
    const first = borrowCanvas(8, 4, 3);
    const second = borrowCanvas(8, 4, 3);
    expect(second).not.toBe(first);
    expect(borrowCanvas(4, 8, 3)).not.toBe(first);
    returnCanvas(first);
    expect(() => returnCanvas(first)).toThrow('given back already');
    expect(() => returnCanvas(Buffer.alloc(96))).toThrow('not borrowed');
    // Another size is not lent a canvas of this one.
    expect(borrowCanvas(4, 8, 3)).not.toBe(first);
    const again = borrowCanvas(8, 4, 3);
    expect(again).toBe(first);
    // Still read in place by the encoder: the header in front says its size.
    again.fill(7);
    const png = await encodePng({ data: again, raw: { width: 8, height: 4, channels: 3 } });
    const decoded = await sharp(png).raw().toBuffer();
    expect(decoded.equals(Buffer.alloc(96, 7))).toBe(true);
  });

  it('keeps at most POOLED_CANVASES free canvases, and none once emptied', () => {
    const canvases = Array.from({ length: POOLED_CANVASES + 3 }, () => borrowCanvas(2, 2, 3));
    canvases.forEach(returnCanvas);
    expect(canvasPoolStats().free).toBe(POOLED_CANVASES);
    emptyCanvasPool();
    expect(canvasPoolStats().free).toBe(0);
  });
});

const W = 900;
const H = 600;

/** A picture of noise, so that a view drawn over another's pixels cannot look the same. */
async function noisePicture(seed: number): Promise<Picture> {
  const pixels = Buffer.alloc(W * H * 3);
  let state = seed;
  for (let i = 0; i < pixels.length; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    pixels[i] = state >> 23;
  }
  const bytes = await sharp(pixels, { raw: { width: W, height: H, channels: 3 } })
    .png()
    .toBuffer();
  return {
    address: `noise${seed}.png`,
    bytes,
    sha256: seed.toString(16).padStart(64, '0'),
    width: W,
    height: H,
    format: 'png'
  };
}

describe('views drawn on pooled canvases', () => {
  beforeEach(() => {
    clearRenderCaches();
    emptyCanvasPool();
  });

  it('never draws a view on a canvas another render still reads', async () => {
    const pictures = await Promise.all([1, 2, 3].map(noisePicture));
    const specs: ViewSpec[] = [{ kind: 'map' }, { kind: 'closeup', at: '#1' }];
    // Views of one size after another (every picture's map, then every close-up), so the next
    // render to start after a view's first encode draws a view of that size.
    const jobs = specs.flatMap(spec =>
      pictures.flatMap(picture => {
        const record = applyMarkArgs(
          emptyRecord(picture.address),
          { marks: [{ at: '300,200', r: 30 }] },
          picture
        ).record;
        return (['png', 'model'] as const).map(format => ({ picture, spec, record, format }));
      })
    );
    const render = (job: (typeof jobs)[number]): Promise<RenderedView> =>
      renderView(job.picture, job.spec, job.record, { format: job.format });
    // Canvases the tests above borrowed and kept.
    const kept = canvasPoolStats().lent;
    // Each view alone, one after the other: what every view must be.
    const alone: Buffer[] = [];
    for (const job of jobs) {
      alone.push((await render(job)).bytes);
    }
    expect(canvasPoolStats().lent).toBe(kept);
    for (let round = 0; round < 6; round++) {
      // All at once, two at a time, both formats of a view sharing its canvas, from an empty
      // pool: a canvas given back before its last encode is done (the JPEG's, read in place by
      // libvips) is the one lent to the next view, drawn over while that encode still reads it.
      clearRenderCaches('views');
      emptyCanvasPool();
      const together = await Promise.all(jobs.map(render));
      together.forEach((view, i) => expect(view.bytes.equals(alone[i])).toBe(true));
      expect(canvasPoolStats().lent).toBe(kept);
      expect(canvasPoolStats().free).toBeGreaterThan(0);
    }
  });
});
