/**
 * A view's overlay is rasterized in parts (a sheet: each tile's marks on a canvas of their own, its
 * rulers on two strips; a map or a close-up: canvases as large as its marks and labels) and
 * composited at their places: the view must be the one the whole overlay, clip paths and all,
 * gives. A rendered sheet, checked against that whole overlay: rendered-sheet.test.ts.
 */
import { rasterizeOverlayParts } from '../server/render/overlay';
import {
  applyMarkArgs,
  emptyRecord,
  PALETTE,
  paneOverlayParts,
  sheetOverlayParts,
  viewGeometry,
  type PictureSize,
  type ViewGeometry,
  type ViewSpec,
  type VisionRecord
} from '../tools/vision';
import { difference, over, wholeOverlayOver } from './helpers/overlay-pixels';

// A local, as in ./helpers/overlay-pixels: a global's lookup in Jest's vm context costs more than
// the arithmetic in a loop over a view's pixels.
const { imul } = Math;

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
