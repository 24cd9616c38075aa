/**
 * A sheet's overlay is rasterized in parts (each tile's marks on a canvas of their own, its rulers
 * on two strips) and composited at their places: the view must be the one the whole overlay,
 * clip paths and all, gives.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import type { RouteContext } from '../server/http';
import { overlayGlyphs, rasterizeOverlay, rasterizeOverlayParts } from '../server/overlay';
import { loadPicture } from '../server/pictures';
import {
  clearRenderCaches,
  MARGIN_BACKGROUND,
  renderCacheStats,
  renderView
} from '../server/render';
import {
  applyMarkArgs,
  drawGeometry,
  emptyRecord,
  PALETTE,
  PALETTE_HEX,
  paneOverlayParts,
  sheetOverlayParts,
  toViewX,
  toViewY,
  viewGeometry,
  type PictureSize,
  type ViewGeometry,
  type ViewRect,
  type ViewSpec,
  type VisionRecord
} from '../tools/vision';

// Jest runs tests in a vm context, where every lookup of a global such as `Math` in a loop over
// a view's pixels costs far more than the arithmetic.
const { abs, floor, imul, max } = Math;

/** Premultiplied RGBA `layer`, lying at `drawn`, over RGB `base` (view-sized), inside `shows`. */
function over(
  base: Buffer,
  viewWidth: number,
  layer: Buffer,
  drawn: ViewRect,
  shows: ViewRect = drawn
): void {
  for (let y = shows.top; y < shows.top + shows.height; y++) {
    for (let x = shows.left; x < shows.left + shows.width; x++) {
      const i = ((y - drawn.top) * drawn.width + x - drawn.left) * 4;
      const alpha = layer[i + 3];
      if (alpha === 0) {
        continue;
      }
      const j = (y * viewWidth + x) * 3;
      for (let c = 0; c < 3; c++) {
        base[j + c] = layer[i + c] + floor((base[j + c] * (255 - alpha) + 127) / 255);
      }
    }
  }
}

/** The whole overlay of a view (clip paths and all) over `base`, as the renderer drew sheets. */
async function wholeOverlayOver(
  base: Buffer,
  geometry: ViewGeometry,
  record: VisionRecord
): Promise<Buffer> {
  const svg = overlayGlyphs().outlineText(drawGeometry(geometry, record));
  const layer = await rasterizeOverlay(svg, geometry);
  const out = Buffer.from(base);
  const view = { left: 0, top: 0, width: geometry.width, height: geometry.height };
  over(out, geometry.width, layer.input as Buffer, view);
  return out;
}

/** The overlay in parts over `base`, each part at its place. */
async function partsOver(
  base: Buffer,
  geometry: ViewGeometry,
  record: VisionRecord
): Promise<Buffer> {
  const parts =
    geometry.kind === 'sheet'
      ? sheetOverlayParts(geometry, record)
      : paneOverlayParts(geometry, record);
  const layers = await rasterizeOverlayParts(parts);
  const out = Buffer.from(base);
  for (const { canvas, layer } of layers) {
    over(out, geometry.width, layer.input as Buffer, canvas.drawn, canvas.shows);
  }
  return out;
}

/** Pixels that differ, and by how much at most. */
function difference(a: Buffer, b: Buffer): { pixels: number; most: number } {
  let pixels = 0;
  let most = 0;
  for (let i = 0; i < a.length; i += 3) {
    const d = max(abs(a[i] - b[i]), abs(a[i + 1] - b[i + 1]), abs(a[i + 2] - b[i + 2]));
    if (d > 0) {
      pixels++;
      most = max(most, d);
    }
  }
  return { pixels, most };
}

/** A base with a different colour at every pixel, so no misplaced layer can hide. */
function noise(geometry: ViewGeometry): Buffer {
  const base = Buffer.alloc(geometry.width * geometry.height * 3);
  for (let i = 0; i < base.length; i++) {
    base[i] = (imul(i, 2654435761) >>> 13) & 255;
  }
  return base;
}

const PHOTO = { width: 4000, height: 3000 };

/** Fifty marks of every kind and colour over a 4000×3000 picture, as bench/vision.mjs has them. */
function fiftyMarks(): VisionRecord {
  const marks = Array.from({ length: 50 }, (_, i) => {
    const x = 80 + ((i * 797) % (PHOTO.width - 400));
    const y = 80 + ((i * 577) % (PHOTO.height - 400));
    const colour = PALETTE[i % PALETTE.length];
    return i % 3 === 2
      ? { at: `${x},${y},${x + 150 + (i % 5) * 40},${y + 100 + (i % 4) * 30}`, colour }
      : { at: `${x},${y}`, r: 20 + (i % 6) * 8, colour };
  });
  return applyMarkArgs(emptyRecord('photo.jpg'), { marks }, PHOTO).record;
}

function marked(size: PictureSize, marks: Array<{ at: string; r?: number }>): VisionRecord {
  const coloured = marks.map((mark, i) => ({ ...mark, colour: PALETTE[i % PALETTE.length] }));
  return applyMarkArgs(emptyRecord('p.png'), { marks: coloured }, size).record;
}

/** A view's overlay drawn in parts over noise is the whole overlay drawn over it, pixel for pixel. */
async function expectPartsAreWhole(
  size: PictureSize,
  record: VisionRecord,
  spec: ViewSpec
): Promise<void> {
  const geometry = viewGeometry(spec, record, size);
  const base = noise(geometry);
  const whole = await wholeOverlayOver(base, geometry, record);
  const parts = await partsOver(base, geometry, record);
  expect(difference(parts, whole)).toEqual({ pixels: 0, most: 0 });
  // The comparison means something: the overlay changed the base.
  expect(difference(whole, base).pixels).toBeGreaterThan(1000);
}

const ids = Array.from({ length: 16 }, (_, i) => `#${i + 1}`);

describe('sheet overlays in parts', () => {
  const cases: Array<[string, PictureSize, VisionRecord, ViewSpec]> = [
    ['9 tiles of fifty marks', PHOTO, fiftyMarks(), { kind: 'sheet', at: ids.slice(0, 9) }],
    ['16 tiles', PHOTO, fiftyMarks(), { kind: 'sheet', at: ids }],
    [
      'covered marks',
      PHOTO,
      fiftyMarks(),
      { kind: 'sheet', at: ids.slice(0, 9), cover: ['red', 'blue', 'green', 'yellow'] }
    ],
    ['one tile', PHOTO, fiftyMarks(), { kind: 'sheet', at: ['#3'] }],
    [
      'addresses at the edges and long labels',
      PHOTO,
      fiftyMarks(),
      {
        kind: 'sheet',
        at: ['0,0', '3999,2999', '0,0,4000,3000', '100,2900,3900,3000', '1,1,40,3000', '2000,1500']
      }
    ],
    [
      'a small picture enlarged as a pixel grid',
      { width: 40, height: 30 },
      marked({ width: 40, height: 30 }, [{ at: '10,10', r: 3 }, { at: '2,2,30,25' }]),
      { kind: 'sheet', at: ['#1', '#2', '5,5', '39,29'] }
    ],
    [
      'five-digit coordinates',
      { width: 99999, height: 77777 },
      marked({ width: 99999, height: 77777 }, [
        { at: '99990,77770', r: 300 },
        { at: '0,0,99999,77777' }
      ]),
      { kind: 'sheet', at: ['#1', '#2', '5,5', '99998,77776', '0,0,99999,77777', '1,1'] }
    ]
  ];

  it.each(cases)('%s: the parts are the whole overlay, pixel for pixel', (_, size, record, spec) =>
    expectPartsAreWhole(size, record, spec)
  );

  it('draws on canvases smaller than the view, none of them a whole-view layer', () => {
    const record = fiftyMarks();
    const geometry = viewGeometry({ kind: 'sheet', at: ids.slice(0, 9) }, record, PHOTO);
    const canvases = sheetOverlayParts(geometry, record).flatMap(part => part.canvases);
    const area = canvases.reduce((sum, c) => sum + c.drawn.width * c.drawn.height, 0);
    expect(area).toBeLessThan(geometry.width * geometry.height);
    for (const { drawn, shows } of canvases) {
      expect(shows.left).toBeGreaterThanOrEqual(drawn.left);
      expect(shows.top).toBeGreaterThanOrEqual(drawn.top);
      expect(shows.left + shows.width).toBeLessThanOrEqual(drawn.left + drawn.width);
      expect(shows.top + shows.height).toBeLessThanOrEqual(drawn.top + drawn.height);
      expect(drawn.width * drawn.height).toBeLessThan((geometry.width * geometry.height) / 4);
    }
  });

  it('cuts an ellipse reaching far past its tile: only antialiasing changes', async () => {
    const record = marked(PHOTO, [
      { at: '1000,1000', r: 400 },
      { at: '1300,1000', r: 30 },
      { at: '1200,900,1500,1300' }
    ]);
    const geometry = viewGeometry(
      { kind: 'sheet', at: ['#2', '#3', '1400,1000', '1000,1000'] },
      record,
      PHOTO
    );
    const base = noise(geometry);
    const whole = await wholeOverlayOver(base, geometry, record);
    const parts = await partsOver(base, geometry, record);
    // Measured: 140 pixels (of 786 688) differ, by at most 16 levels, along the cut ellipse.
    const { pixels, most } = difference(parts, whole);
    expect(pixels).toBeLessThan(300);
    expect(most).toBeLessThanOrEqual(32);
  });
});

describe('map and close-up overlays in parts', () => {
  const cases: Array<[string, PictureSize, VisionRecord, ViewSpec]> = [
    ['a map of fifty marks', PHOTO, fiftyMarks(), { kind: 'map' }],
    [
      'a map with covered marks',
      PHOTO,
      fiftyMarks(),
      { kind: 'map', cover: ['red', 'blue', 'green', 'yellow'] }
    ],
    ['a close-up', PHOTO, fiftyMarks(), { kind: 'closeup', at: '#7' }],
    ['a close-up of a box', PHOTO, fiftyMarks(), { kind: 'closeup', at: '#3' }],
    ['a close-up at the corner', PHOTO, fiftyMarks(), { kind: 'closeup', at: '0,0' }],
    ['a close-up at the far corner', PHOTO, fiftyMarks(), { kind: 'closeup', at: '3999,2999' }],
    ['a marks view', PHOTO, fiftyMarks(), { kind: 'marks', ids: [4, 5, 6, 20] }],
    [
      'marks over the edges and over each other',
      PHOTO,
      marked(PHOTO, [
        { at: '0,0', r: 300 },
        { at: '3999,2999', r: 200 },
        { at: '0,1500', r: 60 },
        { at: '10,10,3990,2990' },
        { at: '2000,0,2400,3000' },
        { at: '2100,1500', r: 40 },
        { at: '2110,1510', r: 40 }
      ]),
      { kind: 'map' }
    ],
    [
      'a small picture enlarged as a pixel grid',
      { width: 40, height: 30 },
      marked({ width: 40, height: 30 }, [{ at: '10,10', r: 3 }, { at: '2,2,30,25' }]),
      { kind: 'closeup', at: '5,5' }
    ],
    [
      'a map of 200 marks, past the boxes gathered into canvases',
      PHOTO,
      marked(
        PHOTO,
        Array.from({ length: 200 }, (_, i) => ({
          at: `${((i * 397) % 3990) + 5},${((i * 211) % 2990) + 5}`,
          r: 4
        }))
      ),
      { kind: 'map' }
    ],
    [
      'five-digit coordinates',
      { width: 99999, height: 77777 },
      marked({ width: 99999, height: 77777 }, [
        { at: '99990,77770', r: 300 },
        { at: '0,0,99999,77777' }
      ]),
      { kind: 'map' }
    ]
  ];

  it.each(cases)('%s: the parts are the whole overlay, pixel for pixel', (_, size, record, spec) =>
    expectPartsAreWhole(size, record, spec)
  );

  it('draws a map of fifty marks on canvases that do not overlap, far smaller than the view', () => {
    const record = fiftyMarks();
    const geometry = viewGeometry({ kind: 'map' }, record, PHOTO);
    const canvases = paneOverlayParts(geometry, record).flatMap(part => part.canvases);
    const area = canvases.reduce((sum, c) => sum + c.drawn.width * c.drawn.height, 0);
    expect(area).toBeLessThan((geometry.width * geometry.height) / 3);
    canvases.forEach((a, i) =>
      canvases.slice(i + 1).forEach(b => {
        const apart =
          a.shows.left + a.shows.width <= b.shows.left ||
          b.shows.left + b.shows.width <= a.shows.left ||
          a.shows.top + a.shows.height <= b.shows.top ||
          b.shows.top + b.shows.height <= a.shows.top;
        expect(apart).toBe(true);
      })
    );
  });
});

describe('a rendered sheet', () => {
  const size = { width: 1600, height: 1200 };
  const colour = [90, 120, 150];
  let root: string;
  let ctx: RouteContext;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'fc-sheet-'));
    // One colour everywhere: every tile resizes to exactly it, so the whole view can be predicted.
    const pixels = Buffer.alloc(size.width * size.height * 3);
    for (let i = 0; i < pixels.length; i += 3) {
      pixels.set(colour, i);
    }
    const png = await sharp(pixels, { raw: { ...size, channels: 3 } })
      .png()
      .toBuffer();
    writeFileSync(join(root, 'flat.png'), png);
    ctx = { root, hideHidden: true, signal: new AbortController().signal };
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('puts a mark shown only in tile 5 on its pixels in tile 5, and the view is the old one', async () => {
    clearRenderCaches();
    const picture = await loadPicture({ address: 'flat.png' }, ctx);
    const record = applyMarkArgs(
      emptyRecord('flat.png'),
      {
        marks: [
          { at: '100,100', r: 20, colour: 'blue' },
          { at: '700,500,900,650', colour: 'red' }
        ]
      },
      size
    ).record;
    const spec: ViewSpec = {
      kind: 'sheet',
      at: ['#1', '#1', '#1', '#1', '#2', '#1', '#1', '#1', '#1']
    };
    const geometry = viewGeometry(spec, record, size);
    const view = await renderView(picture, spec, record);
    const { data } = await sharp(view.bytes).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number): number[] => {
      const i = (Math.floor(y) * geometry.width + Math.floor(x)) * 3;
      return [data[i], data[i + 1], data[i + 2]];
    };

    // The red box's left edge, halfway down, in tile 5; the same place in tile 4 shows picture.
    const tile5 = geometry.panes[4];
    const tile4 = geometry.panes[3];
    const x = toViewX(tile5, 700);
    const y = toViewY(tile5, 575);
    const red = [1, 3, 5].map(i => parseInt(PALETTE_HEX.red.slice(i, i + 2), 16));
    expect(at(x, y)).toEqual(red);
    expect(at(x - tile5.left + tile4.left, y - tile5.top + tile4.top)).toEqual(colour);

    // And every pixel is where the whole overlay put it: the margin's colour, each tile the
    // picture's colour, the whole overlay composited over them.
    const base = Buffer.alloc(geometry.width * geometry.height * 3);
    for (let i = 0; i < base.length; i += 3) {
      base.set([MARGIN_BACKGROUND.r, MARGIN_BACKGROUND.g, MARGIN_BACKGROUND.b], i);
    }
    for (const pane of geometry.panes) {
      for (let row = pane.top; row < pane.top + pane.height; row++) {
        for (let col = pane.left; col < pane.left + pane.width; col++) {
          base.set(colour, (row * geometry.width + col) * 3);
        }
      }
    }
    const expected = await wholeOverlayOver(base, geometry, record);
    expect(difference(data, expected)).toEqual({ pixels: 0, most: 0 });
  });
  it('keeps its tiles: drawn again with new marks it decodes and resizes nothing, same pixels', async () => {
    const picture = await loadPicture({ address: 'flat.png' }, ctx);
    const marks = (x: number) =>
      applyMarkArgs(
        emptyRecord('flat.png'),
        {
          marks: [
            { at: `${x},100`, r: 20, colour: 'blue' },
            { at: '700,500,900,650', colour: 'red' }
          ]
        },
        size
      ).record;
    const spec: ViewSpec = { kind: 'sheet', at: ['100,100', '800,575', '1500,1100'] };
    clearRenderCaches();
    const cold = await renderView(picture, spec, marks(120));
    clearRenderCaches();
    await renderView(picture, spec, marks(100));
    const kept = renderCacheStats().decoded;
    // The band of rows the tiles came from, and the three tiles.
    expect(kept.entries).toBe(4);
    const again = await renderView(picture, spec, marks(120));
    expect(renderCacheStats().decoded).toMatchObject({ entries: kept.entries, bytes: kept.bytes });
    expect(again.bytes.equals(cold.bytes)).toBe(true);
  });
});
