import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { createFigureServer } from '../server/app';
import { HttpError, type RouteContext } from '../server/http/http';
import { loadPicture } from '../server/pictures/pictures';
import { renderView } from '../server/render/render';
import { renderRoute } from '../server/render/route';
import type { RenderAnswer } from '../tools/vision';
import {
  applyMarkArgs,
  emptyRecord,
  PALETTE_HEX,
  toViewX,
  toViewY,
  viewGeometry,
  type ViewSpec,
  type VisionRecord
} from '../tools/vision';

const W = 1600;
const H = 1200;
let root: string;
let ctx: RouteContext;

/** A picture whose left half is dark grey and right half light grey, from raw pixels. */
function rawPicture(): Buffer {
  const pixels = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      pixels.fill(x < W / 2 ? 60 : 190, (y * W + x) * 3, (y * W + x) * 3 + 3);
    }
  }
  return pixels;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-render-'));
  const raw = { raw: { width: W, height: H, channels: 3 as const } };
  writeFileSync(
    join(root, 'p.jpg'),
    await sharp(rawPicture(), raw).jpeg({ quality: 90 }).toBuffer()
  );
  writeFileSync(join(root, 'p.png'), await sharp(rawPicture(), raw).png().toBuffer());
  const jpeg = await sharp(rawPicture(), raw).jpeg().toBuffer();
  writeFileSync(join(root, 'broken.jpg'), jpeg.subarray(0, Math.floor(jpeg.length / 2)));
  ctx = { root, hideHidden: true, signal: new AbortController().signal };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function record(image: string): VisionRecord {
  return applyMarkArgs(
    emptyRecord(image),
    {
      marks: [
        { at: '400,300', r: 60, colour: 'red' },
        { at: '1000,700,1300,900', colour: 'blue' },
        { at: '200,900,500,1100', colour: 'yellow' }
      ]
    },
    { width: W, height: H }
  ).record;
}

async function pixelAt(png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const i = (Math.floor(y) * info.width + Math.floor(x)) * info.channels;
  return [data[i], data[i + 1], data[i + 2]];
}

function hex(colour: string): number[] {
  return [1, 3, 5].map(i => parseInt(colour.slice(i, i + 2), 16));
}

function near(actual: number[], expected: number[], tolerance: number): boolean {
  return actual.every((v, i) => Math.abs(v - expected[i]) <= tolerance);
}

describe.each(['p.jpg', 'p.png'])('rendering %s', image => {
  it('draws marks where the geometry maps them, over the picture', async () => {
    const picture = await loadPicture({ address: image }, ctx);
    const rec = record(image);
    const spec: ViewSpec = { kind: 'map', cover: ['blue'] };
    const view = await renderView(picture, spec, rec);
    const meta = await sharp(view.bytes).metadata();
    const geometry = viewGeometry(spec, rec, picture);
    expect([meta.format, meta.width, meta.height]).toEqual([
      'png',
      geometry.width,
      geometry.height
    ]);
    expect(geometry.width).toBe(1024);
    const pane = geometry.panes[0];
    // The covered blue box is solid blue at its centre.
    expect(await pixelAt(view.bytes, toViewX(pane, 1150), toViewY(pane, 800))).toEqual(
      hex(PALETTE_HEX.blue)
    );
    // The red circle's stroke crosses the point's right edge; inside it the picture shows.
    expect(
      near(
        await pixelAt(view.bytes, toViewX(pane, 460), toViewY(pane, 300)),
        hex(PALETTE_HEX.red),
        40
      )
    ).toBe(true);
    expect(
      near(await pixelAt(view.bytes, toViewX(pane, 430), toViewY(pane, 330)), [60, 60, 60], 12)
    ).toBe(true);
    // The yellow box is hollow: its edge is yellow, its middle is the picture.
    expect(
      near(
        await pixelAt(view.bytes, toViewX(pane, 350), toViewY(pane, 900)),
        hex(PALETTE_HEX.yellow),
        40
      )
    ).toBe(true);
    expect(
      near(await pixelAt(view.bytes, toViewX(pane, 350), toViewY(pane, 1000)), [60, 60, 60], 12)
    ).toBe(true);
    expect(
      near(await pixelAt(view.bytes, toViewX(pane, 1500), toViewY(pane, 600)), [190, 190, 190], 12)
    ).toBe(true);
  });

  it("keeps the marks' colours in the model's compact copy", async () => {
    const picture = await loadPicture({ address: image }, ctx);
    const rec = record(image);
    const spec: ViewSpec = { kind: 'map', cover: ['blue'] };
    const copy = await renderView(picture, spec, rec, { format: 'model' });
    expect(copy.mime).toBe('image/jpeg');
    expect((await sharp(copy.bytes).metadata()).format).toBe('jpeg');
    const pane = viewGeometry(spec, rec, picture).panes[0];
    // The same stroke pixels as above: half-resolution chroma leaves them their palette colour.
    const strokes: Array<[number, number, string]> = [
      [1150, 800, PALETTE_HEX.blue],
      [460, 300, PALETTE_HEX.red],
      [350, 900, PALETTE_HEX.yellow]
    ];
    const seen = await Promise.all(
      strokes.map(([x, y]) => pixelAt(copy.bytes, toViewX(pane, x), toViewY(pane, y)))
    );
    const truth = strokes.map(([, , colour]) => hex(colour));
    expect(seen.map((pixel, i) => near(pixel, truth[i], 48) || [pixel, truth[i]])).toEqual([
      true,
      true,
      true
    ]);
  });

  it('renders close-ups and sheets at their geometry size, crosshair on the asked pixel', async () => {
    const picture = await loadPicture({ address: image }, ctx);
    const rec = record(image);
    const closeup: ViewSpec = { kind: 'closeup', at: '800,600' };
    const view = await renderView(picture, closeup, rec);
    const closeupGeometry = viewGeometry(closeup, rec, picture);
    const pane = closeupGeometry.panes[0];
    expect([view.width, view.height]).toEqual([closeupGeometry.width, closeupGeometry.height]);
    // Left of the asked pixel the crosshair's white arm lies over dark picture.
    expect(
      near(
        await pixelAt(view.bytes, toViewX(pane, 800) - 12, toViewY(pane, 600)),
        [255, 255, 255],
        40
      )
    ).toBe(true);
    const sheetSpec: ViewSpec = {
      kind: 'sheet',
      at: ['#1', '#2', '#3', '100,100', '1500,1100', '0,0,1600,1200', '#1', '#2', '#3']
    };
    const sheet = await renderView(picture, sheetSpec, rec);
    const geometry = viewGeometry(sheetSpec, rec, picture);
    const meta = await sharp(sheet.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([geometry.width, geometry.height]);
    expect(Math.max(sheet.width, sheet.height)).toBeLessThanOrEqual(1024);
    const tile = geometry.panes[4];
    expect(
      near(
        await pixelAt(sheet.bytes, tile.left + tile.width - 3, tile.top + 3),
        [190, 190, 190],
        15
      )
    ).toBe(true);
    expect(await pixelAt(sheet.bytes, 1, 1)).toEqual([32, 32, 32]);
  });
});

async function routeError(body: unknown): Promise<HttpError> {
  try {
    await renderRoute(body, ctx);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error('expected an error');
}

describe('render route', () => {
  it('answers a batch with PNGs and the fingerprint, over a real socket', async () => {
    const server = createFigureServer({ root, hideHidden: true });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/figure-chat/render`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          address: 'p.jpg',
          views: [{ kind: 'map' }, { kind: 'closeup', at: '#2' }],
          record: record('p.jpg')
        })
      });
      expect(response.status).toBe(200);
      const answer = (await response.json()) as RenderAnswer;
      expect(answer.picture).toMatchObject({ address: 'p.jpg', width: W, height: H });
      expect(answer.views).toHaveLength(2);
      expect(answer.views[1].caption).toMatch(/^Close-up of p\.jpg at #2/);
      const png = Buffer.from(answer.views[0].png, 'base64');
      expect((await sharp(png).metadata()).width).toBe(1024);
    } finally {
      await new Promise(resolve => server.close(resolve));
    }
  });

  it('gives actionable errors: corrupt picture, changed picture, bad record, unknown mark', async () => {
    const corrupt = await routeError({
      address: 'broken.jpg',
      view: { kind: 'map' },
      record: emptyRecord('broken.jpg')
    });
    expect(corrupt.status).toBe(422);
    expect(corrupt.message).toMatch(/truncated or corrupt/);
    const changed = await routeError({
      address: 'p.jpg',
      expectSha256: 'a'.repeat(64),
      view: { kind: 'map' },
      record: emptyRecord('p.jpg')
    });
    expect(changed.status).toBe(409);
    expect(changed.message).toMatch(/changed since the conversation marked it/);
    const outside = {
      ...emptyRecord('p.jpg'),
      lastId: 1,
      marks: [{ id: 1, kind: 'point', x: W, y: 1, r: 5, caption: '', colour: 'red' }]
    };
    expect(
      (await routeError({ address: 'p.jpg', view: { kind: 'map' }, record: outside })).code
    ).toBe('out-of-bounds');
    expect(
      (
        await routeError({
          address: 'p.jpg',
          view: { kind: 'closeup', at: '#9' },
          record: record('p.jpg')
        })
      ).code
    ).toBe('unknown-mark');
    expect((await routeError({ address: 'p.jpg', record: record('p.jpg') })).status).toBe(400);
  });

  it('runs 12 concurrent renders to completion', async () => {
    const bodies = Array.from({ length: 12 }, (_, i) => ({
      address: i % 2 ? 'p.jpg' : 'p.png',
      view: { kind: 'closeup', at: `${100 * i},${50 * i}` },
      record: record(i % 2 ? 'p.jpg' : 'p.png')
    }));
    const answers = await Promise.all(bodies.map(body => renderRoute(body, ctx)));
    expect(answers).toHaveLength(12);
  });
});
