/**
 * Views as people and the model see them, rendered for real (resvg and sharp): rulers in a margin
 * outside the picture with labels centred on their ticks, and enlargements that are smooth, or a
 * crisp pixel grid only at very high zoom.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import type { RouteContext } from '../server/http/http';
import { loadPicture } from '../server/pictures/pictures';
import { MARGIN_BACKGROUND, renderView } from '../server/render/render';
import {
  emptyRecord,
  PIXEL_GRID_ZOOM,
  tickLabels,
  TICK_LENGTH,
  toViewX,
  toViewY,
  viewGeometry,
  type Pane,
  type ViewSpec
} from '../tools/vision';

let root: string;
let ctx: RouteContext;

/** Grey picture of one value, or a 1-pixel black and white checkerboard. */
async function writePicture(name: string, width: number, height: number, checker: boolean) {
  const pixels = Buffer.alloc(width * height * 3, 128);
  if (checker) {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        pixels.fill((x + y) % 2 ? 255 : 0, (y * width + x) * 3, (y * width + x) * 3 + 3);
      }
    }
  }
  const png = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  writeFileSync(join(root, name), png);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-margins-'));
  ctx = { root, hideHidden: true, signal: new AbortController().signal };
  await writePicture('grey.png', 1500, 1000, false);
  await writePicture('small-checker.png', 200, 200, true);
  await writePicture('large-checker.png', 1000, 1000, true);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Pixels {
  readonly data: Buffer;
  readonly width: number;
  at(x: number, y: number): number[];
}

async function pixelsOf(png: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return {
    data,
    width: info.width,
    at: (x, y) => {
      const i = (y * info.width + x) * info.channels;
      return [data[i], data[i + 1], data[i + 2]];
    }
  };
}

/** Bright pixels (ruler ink on the dark margin) in a box, as a set of `x,y`. */
function inkIn(pixels: Pixels, x0: number, y0: number, x1: number, y1: number): number[][] {
  const ink: number[][] = [];
  for (let y = Math.max(0, Math.floor(y0)); y < Math.ceil(y1); y++) {
    for (let x = Math.max(0, Math.floor(x0)); x < Math.ceil(x1); x++) {
      if (pixels.at(x, y)[0] > 120) {
        ink.push([x, y]);
      }
    }
  }
  return ink;
}

async function render(address: string, spec: ViewSpec) {
  const picture = await loadPicture({ address }, ctx);
  const record = emptyRecord(address);
  const view = await renderView(picture, spec, record);
  const geometry = viewGeometry(spec, record, picture);
  return { view, geometry, pixels: await pixelsOf(view.bytes) };
}

describe('rulers in the margin', () => {
  it.each<ViewSpec>([{ kind: 'map' }, { kind: 'closeup', at: '0,0,400,300' }])(
    'leaves every picture pixel of a %j view untouched and draws its rulers outside',
    async spec => {
      const { geometry, pixels } = await render('grey.png', spec);
      const pane = geometry.panes[0];
      // The close-up's crosshair is drawn over the picture on purpose: it marks the asked pixel.
      const focus = pane.focus
        ? { x: toViewX(pane, pane.focus.x), y: toViewY(pane, pane.focus.y) }
        : undefined;
      for (let y = pane.top; y < pane.top + pane.height; y++) {
        for (let x = pane.left; x < pane.left + pane.width; x++) {
          if (focus && Math.abs(x - focus.x) <= 21 && Math.abs(y - focus.y) <= 21) {
            continue;
          }
          const [r, g, b] = pixels.at(x, y);
          if (r !== 128 || g !== 128 || b !== 128) {
            throw new Error(`picture pixel ${x},${y} is ${r},${g},${b}, not the picture's 128`);
          }
        }
      }
      // The margin is the background, with ruler ink: tick lines reach the picture's edge.
      expect(pixels.at(0, geometry.height - 1)).toEqual([
        MARGIN_BACKGROUND.r,
        MARGIN_BACKGROUND.g,
        MARGIN_BACKGROUND.b
      ]);
      const labels = tickLabels(pane);
      expect(labels.filter(l => l.axis === 'x').length).toBeGreaterThan(2);
      expect(labels.filter(l => l.axis === 'y').length).toBeGreaterThan(2);
      const tickX = Math.floor(toViewX(pane, labels[1].value));
      expect(inkIn(pixels, tickX, pane.top - TICK_LENGTH, tickX + 1, pane.top)).toHaveLength(
        TICK_LENGTH
      );
    }
  );

  it('centres each drawn tick label on its tick', async () => {
    const { geometry, pixels } = await render('grey.png', { kind: 'map' });
    const pane: Pane = geometry.panes[0];
    let checked = 0;
    for (const label of tickLabels(pane)) {
      // The label's box, widened a little: the estimate of its width is an upper bound.
      const ink = inkIn(
        pixels,
        label.x - label.width / 2 - 2,
        label.y - label.height / 2 - 1,
        label.x + label.width / 2 + 2,
        label.y + label.height / 2 + 1
      ).filter(([x, y]) =>
        label.axis === 'x' ? y < pane.top - TICK_LENGTH : x < pane.left - TICK_LENGTH
      );
      expect(ink.length).toBeGreaterThan(5);
      const xs = ink.map(([x]) => x);
      const ys = ink.map(([, y]) => y);
      // The centre of the ink's extent (pixel centres at +0.5) is the tick's position.
      const centre =
        label.axis === 'x'
          ? (Math.min(...xs) + Math.max(...xs) + 1) / 2
          : (Math.min(...ys) + Math.max(...ys) + 1) / 2;
      const tick = label.axis === 'x' ? label.x : label.y;
      expect(Math.abs(centre - tick)).toBeLessThanOrEqual(1.5);
      checked++;
    }
    expect(checked).toBeGreaterThan(6);
  });
});

/** Share of pixels in the pane's top-left quarter that are neither black nor white. */
function greyShare(pixels: Pixels, pane: Pane): number {
  let grey = 0;
  let all = 0;
  for (let y = pane.top; y < pane.top + pane.height / 4; y++) {
    for (let x = pane.left; x < pane.left + pane.width / 4; x++) {
      const [value] = pixels.at(x, y);
      all++;
      if (value > 20 && value < 235) {
        grey++;
      }
    }
  }
  return grey / all;
}

describe('enlarged close-ups', () => {
  it('enlarges smoothly below the pixel-grid zoom, and says so', async () => {
    const { view, geometry, pixels } = await render('large-checker.png', {
      kind: 'closeup',
      at: '500,500'
    });
    const pane = geometry.panes[0];
    expect(pane.sx).toBeGreaterThan(2);
    expect(pane.sx).toBeLessThan(PIXEL_GRID_ZOOM);
    expect(greyShare(pixels, pane)).toBeGreaterThan(0.3);
    expect(view.caption).toMatch(/; enlarged [\d.]+× smoothly;/);
  });

  it('shows a crisp pixel grid at very high zoom, and says so', async () => {
    const { view, geometry, pixels } = await render('small-checker.png', {
      kind: 'closeup',
      at: '100,100'
    });
    const pane = geometry.panes[0];
    expect(pane.sx).toBe(PIXEL_GRID_ZOOM);
    expect(greyShare(pixels, pane)).toBe(0);
    expect(view.caption).toContain(`; enlarged ${PIXEL_GRID_ZOOM}× as a pixel grid;`);
  });
});
