/**
 * EXIF orientation: a JPEG is measured and drawn the way a browser shows it, for all eight
 * orientations and for both workspace files and cell outputs, so a mark placed on a feature the
 * user sees covers that feature in the rendered view.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import type { RouteContext } from '../server/http/http';
import { pictureInfoRoute } from '../server/pictures/pictures';
import { renderRoute } from '../server/render/route';
import { applyMarkArgs, emptyRecord, viewGeometry, type RenderAnswer } from '../tools/vision';

/** The picture as it is shown: white, with a blue square at FEATURE. */
const W = 160;
const H = 100;
const FEATURE = { x0: 80, y0: 10, x1: 100, y1: 30 };

function shownColour(x: number, y: number): [number, number, number] {
  const inside = x >= FEATURE.x0 && x < FEATURE.x1 && y >= FEATURE.y0 && y < FEATURE.y1;
  return inside ? [0, 0, 255] : [255, 255, 255];
}

/**
 * Where stored pixel (a, b) appears when shown, for each EXIF orientation (the tag says what to
 * do to the stored pixels to show them: 6 is "rotate 90° clockwise", and so on).
 */
const SHOWN_AT: Record<number, (a: number, b: number) => [number, number]> = {
  1: (a, b) => [a, b],
  2: (a, b) => [W - 1 - a, b],
  3: (a, b) => [W - 1 - a, H - 1 - b],
  4: (a, b) => [a, H - 1 - b],
  5: (a, b) => [b, a],
  6: (a, b) => [W - 1 - b, a],
  7: (a, b) => [W - 1 - b, H - 1 - a],
  8: (a, b) => [b, H - 1 - a]
};

/** A JPEG whose stored pixels, shown with `orientation`, are the picture above. */
async function orientedJpeg(orientation: number): Promise<Buffer> {
  const quarter = orientation >= 5;
  const width = quarter ? H : W;
  const height = quarter ? W : H;
  const pixels = Buffer.alloc(width * height * 3);
  for (let b = 0; b < height; b++) {
    for (let a = 0; a < width; a++) {
      const [x, y] = SHOWN_AT[orientation](a, b);
      pixels.set(shownColour(x, y), (b * width + a) * 3);
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 95 })
    .withMetadata({ orientation })
    .toBuffer();
}

/** Pixels of a view that are clearly the blue feature. */
async function bluePixels(png: Buffer): Promise<Array<[number, number]>> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const found: Array<[number, number]> = [];
  for (let i = 0; i < data.length; i += info.channels) {
    if (data[i + 2] > 160 && data[i] < 90 && data[i + 1] < 90) {
      const pixel = i / info.channels;
      found.push([pixel % info.width, Math.floor(pixel / info.width)]);
    }
  }
  return found;
}

let root: string;
let ctx: RouteContext;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'fc-orient-'));
  ctx = { root, hideHidden: true, signal: new AbortController().signal };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.each([1, 2, 3, 4, 5, 6, 7, 8])('EXIF orientation %i', orientation => {
  let jpeg: Buffer;

  beforeAll(async () => {
    jpeg = await orientedJpeg(orientation);
    writeFileSync(join(root, `o${orientation}.jpg`), jpeg);
    expect((await sharp(jpeg).metadata()).orientation).toBe(orientation);
  });

  it.each(['file', 'cell'])('is measured and drawn as shown (%s path)', async path => {
    const address = path === 'file' ? `o${orientation}.jpg` : `cell:o${orientation}/0`;
    const data = path === 'file' ? {} : { data: jpeg.toString('base64') };
    const info = (await pictureInfoRoute({ address, ...data }, ctx)) as {
      json: { width: number; height: number };
    };
    expect([info.json.width, info.json.height]).toEqual([W, H]);

    // Unmarked, the map shows the feature where the user sees it (the map of a small picture
    // is the picture at scale 1, framed by the ruler margin).
    const { left, top } = viewGeometry({ kind: 'map' }, emptyRecord(address), {
      width: W,
      height: H
    }).panes[0];
    const plain = (await renderRoute(
      { address, ...data, view: { kind: 'map' }, record: emptyRecord(address) },
      ctx
    )) as { json: RenderAnswer };
    const seen = await bluePixels(Buffer.from(plain.json.views[0].png, 'base64'));
    expect(seen.length).toBeGreaterThan(250);
    for (const [x, y] of seen.map(([vx, vy]) => [vx - left, vy - top])) {
      expect(x >= FEATURE.x0 - 1 && x <= FEATURE.x1 && y >= FEATURE.y0 - 1 && y <= FEATURE.y1).toBe(
        true
      );
    }

    // A box mark on the feature, painted out with `cover`, hides every blue pixel.
    const { x0, y0, x1, y1 } = FEATURE;
    const record = applyMarkArgs(
      emptyRecord(address),
      { marks: [{ at: `${x0},${y0},${x1 - 1},${y1 - 1}`, colour: 'red' }] },
      { width: W, height: H }
    ).record;
    const covered = (await renderRoute(
      { address, ...data, view: { kind: 'map', cover: ['red'] }, record },
      ctx
    )) as { json: RenderAnswer };
    expect(await bluePixels(Buffer.from(covered.json.views[0].png, 'base64'))).toEqual([]);
  });
});
