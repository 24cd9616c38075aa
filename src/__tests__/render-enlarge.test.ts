/**
 * Smooth enlargements (close-ups and sheet tiles shown larger than the picture's pixels), rendered
 * for real: the picture lies where the view geometry, and so every mark, puts it, and the kernel is
 * Catmull-Rom.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { dropAlpha, enlargeSmooth } from '../server/render/enlarge';
import type { RouteContext } from '../server/http/http';
import { loadPicture } from '../server/pictures/pictures';
import { renderView } from '../server/render/render';
import {
  emptyRecord,
  paneSampling,
  toViewX,
  toViewY,
  viewGeometry,
  type Pane,
  type ViewSpec
} from '../tools/vision';

let root: string;
let ctx: RouteContext;

/** A white rectangle, picture pixels [500, 570) × [400, 470), on black. */
const RECT = { x0: 500, x1: 570, y0: 400, y1: 470 };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-enlarge-'));
  ctx = { root, hideHidden: true, signal: new AbortController().signal };
  const width = 1200;
  const height = 900;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = RECT.y0; y < RECT.y1; y++) {
    pixels.fill(255, (y * width + RECT.x0) * 3, (y * width + RECT.x1) * 3);
  }
  writeFileSync(
    join(root, 'rect.png'),
    await sharp(pixels, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer()
  );
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Where a line of view pixels crosses half brightness, in view coordinates (pixel X spans
 * [X, X + 1), its centre at X + ½), interpolated between the two pixel centres around it.
 */
function crossings(values: readonly number[], offset: number): number[] {
  const found: number[] = [];
  for (let i = 0; i + 1 < values.length; i++) {
    const [a, b] = [values[i], values[i + 1]];
    if (a < 127.5 !== b < 127.5) {
      found.push(offset + i + 0.5 + (127.5 - a) / (b - a));
    }
  }
  return found;
}

async function rendered(
  spec: ViewSpec
): Promise<{ pane: Pane; at: (x: number, y: number) => number }> {
  const picture = await loadPicture({ address: 'rect.png' }, ctx);
  const record = emptyRecord('rect.png');
  const view = await renderView(picture, spec, record);
  const pane = viewGeometry(spec, record, picture).panes[0];
  const { data, info } = await sharp(view.bytes).raw().toBuffer({ resolveWithObject: true });
  return { pane, at: (x, y) => data[(y * info.width + x) * info.channels] };
}

describe('smooth enlargements', () => {
  it.each<[string, ViewSpec]>([
    ['a close-up of a point', { kind: 'closeup', at: '535,435' }],
    ['a close-up of a box', { kind: 'closeup', at: '480,380,590,490' }],
    ["a sheet's tile", { kind: 'sheet', at: ['535,435', '100,100'] }]
  ])("put the picture's edges where the view geometry puts them, in %s", async (_, spec) => {
    const { pane, at: value } = await rendered(spec);
    expect(paneSampling(pane)).toBe('smooth');
    // A row and a column through the rectangle, away from the crosshair at the focus.
    const row = Math.floor(toViewY(pane, RECT.y0 + 12));
    const column = Math.floor(toViewX(pane, RECT.x1 - 12));
    const across = Array.from({ length: pane.width }, (_, i) => value(pane.left + i, row));
    const down = Array.from({ length: pane.height }, (_, i) => value(column, pane.top + i));
    const expected = {
      x: [toViewX(pane, RECT.x0), toViewX(pane, RECT.x1)],
      y: [toViewY(pane, RECT.y0), toViewY(pane, RECT.y1)]
    };
    const found = { x: crossings(across, pane.left), y: crossings(down, pane.top) };
    // libvips' affine enlargement put every edge half a view pixel right of and below these.
    expect(found.x).toHaveLength(2);
    expect(found.y).toHaveLength(2);
    found.x.forEach((x, i) => expect(Math.abs(x - expected.x[i])).toBeLessThan(0.15));
    found.y.forEach((y, i) => expect(Math.abs(y - expected.y[i])).toBeLessThan(0.15));
  });
});

/** Catmull-Rom weight at distance t. */
function catmullRom(t: number): number {
  const a = Math.abs(t);
  return a < 1
    ? 1.5 * a ** 3 - 2.5 * a ** 2 + 1
    : a < 2
      ? -0.5 * a ** 3 + 2.5 * a ** 2 - 4 * a + 2
      : 0;
}

describe('enlargeSmooth', () => {
  it('is Catmull-Rom from pixel centre to pixel centre, within one level', async () => {
    const source = { width: 40, height: 30 };
    // Smooth but busy: neighbours differ by up to about 70 levels, so a kernel, or a sampling
    // position, other than this one is off by several levels.
    const data = Buffer.alloc(source.width * source.height * 3);
    for (let y = 0; y < source.height; y++) {
      for (let x = 0; x < source.width; x++) {
        const i = (y * source.width + x) * 3;
        data[i] = Math.round(128 + 100 * Math.sin(x * 0.7) * Math.cos(y * 0.5));
        data[i + 1] = Math.round(128 + 90 * Math.cos(x * 0.4 + y * 0.6));
        data[i + 2] = 30 + x * 4 + y * 2;
      }
    }
    // Pixels outside the rectangle differ wildly: reading any of them would show.
    data.fill(255, 0, 5 * source.width * 3);
    const rect = { left: 7, top: 5, width: 23, height: 17 };
    const [width, height] = [61, 50];
    const out = await enlargeSmooth({ data, raw: { ...source, channels: 3 } }, rect, width, height);
    expect(out.raw).toEqual({ width, height, channels: 3 });
    let worst = 0;
    for (let y = 0; y < height; y++) {
      const v = ((y + 0.5) * rect.height) / height - 0.5;
      for (let x = 0; x < width; x++) {
        const u = ((x + 0.5) * rect.width) / width - 0.5;
        for (let c = 0; c < 3; c++) {
          // At the rectangle's edges the kernel's part outside it is left out, the rest reweighted.
          let sum = 0;
          let weights = 0;
          for (
            let j = Math.max(0, Math.floor(v) - 1);
            j <= Math.min(rect.height - 1, Math.floor(v) + 2);
            j++
          ) {
            for (
              let i = Math.max(0, Math.floor(u) - 1);
              i <= Math.min(rect.width - 1, Math.floor(u) + 2);
              i++
            ) {
              const weight = catmullRom(u - i) * catmullRom(v - j);
              sum += weight * data[((rect.top + j) * source.width + rect.left + i) * 3 + c];
              weights += weight;
            }
          }
          sum /= weights;
          const want = Math.min(255, Math.max(0, Math.round(sum)));
          worst = Math.max(worst, Math.abs(out.data[(y * width + x) * 3 + c] - want));
        }
      }
    }
    expect(worst).toBeLessThanOrEqual(1);
  });

  it('refuses a rectangle outside its source', async () => {
    const image = {
      data: Buffer.alloc(4 * 4 * 3),
      raw: { width: 4, height: 4, channels: 3 as const }
    };
    await expect(
      enlargeSmooth(image, { left: 2, top: 0, width: 3, height: 2 }, 8, 8)
    ).rejects.toThrow('cannot enlarge 3×2 at 2,0 of a 4×4×3 image to 8×8');
  });
});

describe('dropAlpha', () => {
  /** RGBA bytes where every byte differs from its neighbours', so a byte moved anywhere shows. */
  function rgbaOf(pixels: number, offset = 0): Buffer {
    const room = Buffer.alloc(offset + pixels * 4);
    for (let i = 0; i < pixels * 4; i++) {
      room[offset + i] = (i * 37 + 11) & 255;
    }
    return room.subarray(offset);
  }

  function byteByByte(rgba: Buffer): Buffer {
    const rgb = Buffer.alloc((rgba.length / 4) * 3);
    for (let p = 0; p < rgba.length / 4; p++) {
      rgba.copy(rgb, p * 3, p * 4, p * 4 + 3);
    }
    return rgb;
  }

  it.each([0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 255, 256, 768 * 3 + 1])(
    'keeps R, G and B of each of %i pixels, in order',
    pixels => {
      const rgba = rgbaOf(pixels);
      expect(dropAlpha(rgba).equals(byteByByte(rgba))).toBe(true);
    }
  );

  it('reads a source that does not start on a 4-byte boundary', () => {
    for (const offset of [1, 2, 3]) {
      const rgba = rgbaOf(41, offset);
      expect(rgba.byteOffset % 4).not.toBe(0);
      expect(dropAlpha(rgba).equals(byteByByte(rgba))).toBe(true);
    }
  });
});
