import sharp from 'sharp';

import { OVERLAY_LAYER_BYTES, overlayLayerStats } from '../server/render/overlay';
import type { Picture } from '../server/pictures/pictures';
import { clearRenderCaches, renderView } from '../server/render/render';
import { applyMarkArgs, emptyRecord, type ViewSpec, type VisionRecord } from '../tools/vision';

// resvg as it is, its calls counted.
jest.mock('@resvg/resvg-js', () => {
  const actual = jest.requireActual('@resvg/resvg-js');
  return { ...actual, renderAsync: jest.fn(actual.renderAsync) };
});
const resvg = require('@resvg/resvg-js') as { renderAsync: jest.Mock };

const W = 1600;
const H = 1200;

async function gradient(): Promise<Picture> {
  const pixels = Buffer.alloc(W * H * 3);
  for (let i = 0; i < W * H; i++) {
    pixels[i * 3] = (i % W) & 255;
    pixels[i * 3 + 1] = Math.floor(i / W) & 255;
    pixels[i * 3 + 2] = 90;
  }
  const bytes = await sharp(pixels, { raw: { width: W, height: H, channels: 3 } })
    .jpeg()
    .toBuffer();
  return { address: 'g.jpg', bytes, sha256: 'c'.repeat(64), width: W, height: H, format: 'jpeg' };
}

function marked(picture: Picture, count: number): VisionRecord {
  const marks = Array.from({ length: count }, (_, k) => ({
    at: `${150 + ((130 * k) % 1300)},${200 + 80 * (k % 5) + 40 * Math.floor(k / 10)}`,
    r: 25
  }));
  return applyMarkArgs(emptyRecord(picture.address), { marks }, picture).record;
}

describe('rasterized overlay layers kept', () => {
  beforeEach(() => clearRenderCaches());

  it('draws a view with a mark added from the layers it shares, pixel for pixel as cold', async () => {
    const picture = await gradient();
    const specs: ViewSpec[] = [
      { kind: 'map' },
      { kind: 'closeup', at: '#2' },
      { kind: 'sheet', at: ['#1', '#2', '#3'] }
    ];
    for (const spec of specs) {
      clearRenderCaches();
      await renderView(picture, spec, marked(picture, 8));
      const first = resvg.renderAsync.mock.calls.length;
      // The same view with a ninth mark: only the canvases that changed are rasterized again.
      const record = marked(picture, 9);
      resvg.renderAsync.mockClear();
      const again = await renderView(picture, spec, record);
      expect(resvg.renderAsync.mock.calls.length).toBeLessThan(first);
      clearRenderCaches();
      resvg.renderAsync.mockClear();
      const cold = await renderView(picture, spec, record);
      expect(resvg.renderAsync.mock.calls.length).toBeGreaterThan(0);
      expect(again.bytes.equals(cold.bytes)).toBe(true);
    }
  });

  it('keeps the layers within their byte budget', async () => {
    const picture = await gradient();
    for (let count = 1; count <= 30; count++) {
      await renderView(picture, { kind: 'map' }, marked(picture, count));
      await renderView(picture, { kind: 'map' }, marked(picture, count), { width: 400 });
    }
    const stats = overlayLayerStats();
    expect(stats.entries).toBeGreaterThan(0);
    expect(stats.peak).toBeLessThanOrEqual(OVERLAY_LAYER_BYTES);
    clearRenderCaches();
    expect(overlayLayerStats().entries).toBe(0);
  });
});
