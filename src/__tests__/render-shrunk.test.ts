/**
 * Views drawn smaller for display (`render`'s `width`): the chat shows views at the sidebar's
 * width, so it asks for them at that width instead of drawing, sending and decoding the full
 * view for the browser to shrink. The small view must be the full view shrunk: the same
 * geometry, marks in the same places, lines and labels in proportion. Each is compared here with
 * a downscale of the full view to the same size.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import type { RouteContext } from '../server/http/http';
import { loadPicture } from '../server/pictures/pictures';
import { renderView } from '../server/render/render';
import { renderRoute } from '../server/render/route';
import {
  applyMarkArgs,
  emptyRecord,
  PALETTE_HEX,
  shrinkGeometry,
  viewGeometry,
  type Pane,
  type ViewSpec,
  type VisionRecord
} from '../tools/vision';
import { decodeRenderAnswer } from '../tools/wire';

let root: string;
let ctx: RouteContext;

/**
 * A photo-like picture in greys (far from every palette colour, so a mark's colour is the mark's):
 * gradients, diagonal stripes and a hard edge.
 */
function photo(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  const period = Math.max(4, Math.round(width / 60));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const stripe = Math.floor((x + y) / period) % 2 ? 30 : 0;
      const grey = 60 + (x * 100) / width + (y * 40) / height + stripe + (x > width / 2 ? 20 : 0);
      pixels.fill(Math.round(grey), (y * width + x) * 3, (y * width + x) * 3 + 3);
    }
  }
  return pixels;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-shrunk-'));
  const tour = JSON.parse(
    readFileSync(join(__dirname, '..', '..', 'examples', 'figure-chat-tour.ipynb'), 'utf8')
  ) as { cells: Array<{ outputs?: Array<{ data?: Record<string, string> }> }> };
  const plot = tour.cells
    .flatMap(cell => cell.outputs ?? [])
    .map(output => output.data?.['image/png'])
    .find(Boolean);
  writeFileSync(join(root, 'plot.png'), Buffer.from(plot as string, 'base64'));
  const flat = Buffer.alloc(1600 * 1200 * 3, FLAT);
  writeFileSync(
    join(root, 'flat.png'),
    await sharp(flat, { raw: { width: 1600, height: 1200, channels: 3 } })
      .png()
      .toBuffer()
  );
  for (const [name, width, height] of [
    ['photo.jpg', 1600, 1200],
    ['icon.png', 64, 48]
  ] as const) {
    const raw = { raw: { width, height, channels: 3 as const } };
    const image = sharp(photo(width, height), raw);
    writeFileSync(
      join(root, name),
      await (name.endsWith('.jpg') ? image.jpeg({ quality: 90 }) : image.png()).toBuffer()
    );
  }
  ctx = { root, hideHidden: true, signal: new AbortController().signal };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function marked(image: string, size: { width: number; height: number }): VisionRecord {
  const at = (fx: number, fy: number): string =>
    `${Math.round(fx * size.width)},${Math.round(fy * size.height)}`;
  const box = (a: number, b: number, c: number, d: number): string => `${at(a, b)},${at(c, d)}`;
  return applyMarkArgs(
    emptyRecord(image),
    {
      marks: [
        { at: at(0.3, 0.3), colour: 'red', caption: 'a point' },
        { at: box(0.55, 0.5, 0.8, 0.75), colour: 'cyan' },
        { at: box(0.1, 0.6, 0.35, 0.9), colour: 'yellow' }
      ]
    },
    size
  ).record;
}

interface Pixels {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
}

/**
 * A PNG's pixels, or those of its downscale to `resize` as a browser draws it (a triangle filter
 * over the covered pixels, with no Lanczos overshoot).
 */
async function pixels(png: Buffer, resize?: { width: number; height: number }): Promise<Pixels> {
  const image = sharp(png).removeAlpha();
  const { data, info } = await (
    resize ? image.resize(resize.width, resize.height, { fit: 'fill', kernel: 'linear' }) : image
  )
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean absolute difference per channel, 0–255. */
function meanDifference(a: Pixels, b: Pixels): number {
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) {
    sum += Math.abs(a.data[i] - b.data[i]);
  }
  return sum / a.data.length;
}

/** The flat picture's grey: marks over it are the only thing that is not grey. */
const FLAT = 128;

/**
 * Where a palette colour is painted, as a map of how much of it each pixel holds: the pixel's
 * chroma (its difference from its own grey) projected on the colour's, which is linear in
 * coverage (a thin stroke anti-aliased over two pixels weighs as much as over one) and zero for
 * the greys, black and white of the picture, the rulers and the crosshair. Then blurred a little
 * (a Gaussian of σ = 1 px), so two drawings of one stroke whose edges are anti-aliased
 * differently still agree and a stroke two pixels away does not.
 */
function colourMap(image: Pixels, hex: string, panes: readonly Pane[]): Float64Array {
  const chroma = (r: number, g: number, b: number): number[] => {
    const grey = (r + g + b) / 3;
    return [r - grey, g - grey, b - grey];
  };
  const axis = chroma(
    ...([1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number])
  );
  const norm = axis.reduce((sum, v) => sum + v * v, 0);
  const { width, height, data } = image;
  const map = new Float64Array(width * height);
  const inside = new Uint8Array(width * height);
  // Only inside the panes (two pixels in from their edges, which the small view places to the
  // nearest pixel).
  for (const pane of panes) {
    for (let y = pane.top + 2; y < pane.top + pane.height - 2; y++) {
      inside.fill(1, y * width + pane.left + 2, y * width + pane.left + pane.width - 2);
    }
  }
  for (let p = 0; p < map.length; p++) {
    if (!inside[p]) {
      continue;
    }
    const [r, g, b] = chroma(data[p * 3], data[p * 3 + 1], data[p * 3 + 2]);
    map[p] = Math.max(0, (r * axis[0] + g * axis[1] + b * axis[2]) / norm);
  }
  const kernel = [-3, -2, -1, 0, 1, 2, 3].map(k => Math.exp(-(k * k) / 2));
  const blur = (
    source: Float64Array,
    step: number,
    length: number,
    lines: number,
    next: number
  ) => {
    const out = new Float64Array(source.length);
    for (let line = 0; line < lines; line++) {
      const start = line * next;
      for (let i = 0; i < length; i++) {
        let sum = 0;
        for (let k = 0; k < 7; k++) {
          const j = Math.min(length - 1, Math.max(0, i + k - 3));
          sum += kernel[k] * source[start + j * step];
        }
        out[start + i * step] = sum;
      }
    }
    return out;
  };
  return blur(blur(map, 1, width, height, width), width, height, width, 1);
}

/** How much of a colour two pictures paint, as a ratio, and how alike where (1: the same). */
function compareColour(
  a: Pixels,
  b: Pixels,
  hex: string,
  panes: readonly Pane[]
): { amount: number; alike: number; total: number } {
  const ma = colourMap(a, hex, panes);
  const mb = colourMap(b, hex, panes);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < ma.length; i++) {
    ab += ma[i] * mb[i];
    aa += ma[i] * ma[i];
    bb += mb[i] * mb[i];
  }
  const total = (map: Float64Array): number => map.reduce((sum, w) => sum + w, 0);
  return { amount: total(ma) / total(mb), alike: ab / Math.sqrt(aa * bb), total: total(mb) };
}

const CASES: Array<[string, string, ViewSpec]> = [
  ['photo.jpg', 'map', { kind: 'map' }],
  ['photo.jpg', 'close-up', { kind: 'closeup', at: '#1' }],
  ['photo.jpg', 'sheet', { kind: 'sheet', at: ['#1', '#2', '#3', '100,100'] }],
  ['photo.jpg', 'marks view', { kind: 'marks', ids: [2, 3] }],
  ['plot.png', 'close-up (the reopen benchmark)', { kind: 'closeup', at: '105,63' }],
  ['plot.png', 'map', { kind: 'map' }],
  ['icon.png', 'pixel-grid close-up', { kind: 'closeup', at: '#1' }]
];

describe.each(CASES)('%s %s drawn for display', (image, _, spec) => {
  it.each([352, 500])('at %i px is the full view shrunk', async width => {
    const picture = await loadPicture({ address: image }, ctx);
    const record = marked(image, picture);
    const full = await renderView(picture, spec, record);
    const small = await renderView(picture, spec, record, { width });
    if (width >= full.width) {
      expect(small).toEqual(full);
      return;
    }
    const geometry = shrinkGeometry(viewGeometry(spec, record, picture), width);
    expect(full.shrunkFrom).toBeUndefined();
    expect(small.shrunkFrom).toEqual({ width: full.width, height: full.height });
    expect(small.caption).toBe(full.caption);
    expect([small.width, small.height]).toEqual([
      width,
      Math.round((full.height * width) / full.width)
    ]);
    expect([small.width, small.height]).toEqual([geometry.width, geometry.height]);
    const mine = await pixels(small.bytes);
    expect([mine.width, mine.height]).toEqual([small.width, small.height]);
    const shrunk = await pixels(full.bytes, mine);
    // The same picture: on average within a few levels of the full view's downscale (thin lines
    // and stripes alias a little differently when shrunk once rather than twice).
    expect(meanDifference(mine, shrunk)).toBeLessThan(6);
  });
});

const MARK_VIEWS: Array<[string, ViewSpec]> = [
  ['map', { kind: 'map' }],
  ['close-up', { kind: 'closeup', at: '#2' }],
  ['sheet', { kind: 'sheet', at: ['#1', '#2', '#3', '100,100'] }],
  ['marks view', { kind: 'marks', ids: [1, 2, 3] }]
];

describe.each(MARK_VIEWS)('the marks of a %s drawn for display', (_, spec) => {
  it.each([352, 448])('at %i px are where and as heavy as in the full view shrunk', async width => {
    const picture = await loadPicture({ address: 'flat.png' }, ctx);
    const record = marked('flat.png', picture);
    const full = await renderView(picture, spec, record);
    const mine = await pixels((await renderView(picture, spec, record, { width })).bytes);
    const shrunk = await pixels(full.bytes, mine);
    const { panes } = shrinkGeometry(viewGeometry(spec, record, picture), width);
    for (const colour of ['red', 'cyan', 'yellow'] as const) {
      const { amount, alike, total } = compareColour(mine, shrunk, PALETTE_HEX[colour], panes);
      if (total < 20) {
        // Not in this view.
        continue;
      }
      expect({ colour, amount: amount > 0.9 && amount < 1.1, alike: alike > 0.95 }).toEqual({
        colour,
        amount: true,
        alike: true
      });
    }
  });
});

it('checks what it claims: another view, or marks two pixels off, do not pass', async () => {
  const photo = await loadPicture({ address: 'photo.jpg' }, ctx);
  const closeup: ViewSpec = { kind: 'closeup', at: '#1' };
  const one = await pixels(
    (await renderView(photo, closeup, marked('photo.jpg', photo), { width: 352 })).bytes
  );
  const other = await renderView(
    photo,
    { kind: 'closeup', at: '490,370' },
    marked('photo.jpg', photo)
  );
  expect(meanDifference(one, await pixels(other.bytes, one))).toBeGreaterThan(6);
  const picture = await loadPicture({ address: 'flat.png' }, ctx);
  const record = marked('flat.png', picture);
  const spec: ViewSpec = { kind: 'map' };
  const full = await renderView(picture, spec, record);
  const small = await pixels((await renderView(picture, spec, record, { width: 352 })).bytes);
  // The full view moved by two pixels of the small one.
  const by = Math.round((2 * full.width) / small.width);
  const shifted = await sharp(full.bytes)
    .extend({ left: by, top: by, background: '#000' })
    .extract({ left: 0, top: 0, width: full.width, height: full.height })
    .png()
    .toBuffer();
  const { panes } = shrinkGeometry(viewGeometry(spec, record, picture), small.width);
  for (const colour of ['red', 'cyan', 'yellow'] as const) {
    const { alike } = compareColour(
      small,
      await pixels(shifted, small),
      PALETTE_HEX[colour],
      panes
    );
    expect(alike).toBeLessThan(0.95);
  }
});

it('never enlarges: a view narrower than the width asked for is the full view', async () => {
  const picture = await loadPicture({ address: 'plot.png' }, ctx);
  const record = marked('plot.png', picture);
  const spec: ViewSpec = { kind: 'map' };
  const full = await renderView(picture, spec, record);
  const wide = await renderView(picture, spec, record, { width: full.width + 100 });
  expect(wide.shrunkFrom).toBeUndefined();
  expect(wide.bytes.equals(full.bytes)).toBe(true);
});

it('answers a shrunk view on the wire with its full size; the model copy stays full size', async () => {
  const record = marked('photo.jpg', { width: 1600, height: 1200 });
  const answer = (await renderRoute(
    {
      address: 'photo.jpg',
      views: [{ kind: 'closeup', at: '#1' }],
      record,
      width: 300,
      model: true,
      answer: 'binary'
    },
    ctx
  )) as { bytes: Buffer };
  const { views } = decodeRenderAnswer(new Uint8Array(answer.bytes));
  const full = viewGeometry({ kind: 'closeup', at: '#1' }, record, { width: 1600, height: 1200 });
  expect(views[0].width).toBe(300);
  expect(views[0].shrunkFrom).toEqual({ width: full.width, height: full.height });
  const model = await sharp(Buffer.from(views[0].model?.bytes ?? [])).metadata();
  expect([model.width, model.height]).toEqual([full.width, full.height]);
});
