import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp, { type OutputInfo } from 'sharp';

import type { RouteContext } from '../server/http/http';
import { loadPicture } from '../server/pictures/pictures';
import { allocatePixels, encodePng, PngEncodeError } from '../server/render/png-encode';
import { PNG_COMPRESSION_LEVEL, renderView } from '../server/render/render';
import { writePhotoJpeg } from './helpers/photo';
import { applyMarkArgs, emptyRecord, type ViewSpec } from '../tools/vision';

const W = 2400;
const H = 1800;
let root: string;
let ctx: RouteContext;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-png-encode-'));
  await writePhotoJpeg(root, 'photo.jpg', W, H, 40);
  ctx = { root, hideHidden: true, signal: new AbortController().signal };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function decoded(png: Buffer): Promise<{ data: Buffer; info: OutputInfo }> {
  return sharp(png).raw().toBuffer({ resolveWithObject: true });
}

describe('the PNG of a view', () => {
  const record = applyMarkArgs(
    emptyRecord('photo.jpg'),
    {
      marks: [
        { at: '600,450', r: 80, colour: 'red' },
        { at: '1500,1000,1900,1300', colour: 'blue' }
      ]
    },
    { width: W, height: H }
  ).record;
  // The largest share of libpng's bytes each may take. Downscaled photographs (the map, the
  // sheet's tiles) deflate about a tenth smaller; an enlarged close-up, with its repeated pixels,
  // about as small as libpng's.
  const views: [string, ViewSpec, number][] = [
    ['map', { kind: 'map' }, 0.95],
    ['close-up', { kind: 'closeup', at: '#1' }, 1],
    ['sheet', { kind: 'sheet', at: ['#1', '#2'] }, 0.95]
  ];

  it.each(views)(
    'of a %s is RGB, its pixels in at most its share of the bytes libpng writes at our level',
    async (_name, spec, share) => {
      const picture = await loadPicture({ address: 'photo.jpg' }, ctx);
      const view = await renderView(picture, spec, record);
      const ours = await decoded(view.bytes);
      expect(ours.info).toMatchObject({ width: view.width, height: view.height, channels: 3 });
      // What libvips wrote before: libpng + zlib-ng at PNG_COMPRESSION_LEVEL, adaptive filters.
      const libpng = await sharp(ours.data, { raw: ours.info })
        .png({ compressionLevel: PNG_COMPRESSION_LEVEL, adaptiveFiltering: true })
        .toBuffer();
      expect((await decoded(libpng)).data.equals(ours.data)).toBe(true);
      expect(view.bytes.length).toBeLessThanOrEqual(libpng.length * share);
    }
  );
});

describe('encodePng', () => {
  it.each([
    [1, 1],
    [3, 7],
    [257, 129]
  ])('writes %i×%i pixels that decode back the same, flat, noisy or smooth', async (w, h) => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 255;
    const patterns = [() => 32, () => random(), (i: number) => (i * 7) & 255];
    for (const channels of [1, 3, 4]) {
      for (const pattern of patterns) {
        const data = Buffer.alloc(w * h * channels);
        for (let i = 0; i < data.length; i++) {
          data[i] = pattern(i);
        }
        const png = await encodePng({ data, raw: { width: w, height: h, channels } });
        expect(await sharp(png).metadata()).toMatchObject({ width: w, height: h, channels });
        // sharp hands grey out as RGB: its first channel is the grey.
        const back = await (channels === 1 ? sharp(png).extractChannel(0) : sharp(png))
          .raw()
          .toBuffer();
        expect(back.equals(data)).toBe(true);
      }
    }
  });

  it('reads pixels allocated behind their header in place, and only as the size they were made', async () => {
    for (const channels of [1, 3] as const) {
      const data = allocatePixels(6, 4, channels);
      expect(data.length).toBe(6 * 4 * channels);
      expect(data.every(byte => byte === 0)).toBe(true);
      for (let i = 0; i < data.length; i++) {
        data[i] = (i * 37) & 255;
      }
      const png = await encodePng({ data, raw: { width: 6, height: 4, channels } });
      const back = await (channels === 1 ? sharp(png).extractChannel(0) : sharp(png))
        .raw()
        .toBuffer();
      expect(back.equals(data)).toBe(true);
      // The same bytes said to be another shape: the header in front no longer fits, so it is not
      // used, and the PNG has the shape asked for.
      const turned = await encodePng({ data, raw: { width: 4, height: 6, channels } });
      expect(await sharp(turned).metadata()).toMatchObject({ width: 4, height: 6 });
      // A part of them is not what was allocated: encoded from a copy, not from what lies before it.
      const rows = data.subarray(6 * channels);
      const tail = await encodePng({ data: rows, raw: { width: 6, height: 3, channels } });
      const tailBack = await (channels === 1 ? sharp(tail).extractChannel(0) : sharp(tail))
        .raw()
        .toBuffer();
      expect(tailBack.equals(rows)).toBe(true);
    }
    expect(() => allocatePixels(0, 4, 3)).toThrow(PngEncodeError);
  });

  it('refuses pixels that are not 8-bit grey, RGB or RGBA, saying what it got', async () => {
    const two = { data: Buffer.alloc(4 * 4 * 2), raw: { width: 4, height: 4, channels: 2 } };
    await expect(encodePng(two)).rejects.toThrow(PngEncodeError);
    await expect(encodePng(two)).rejects.toThrow('4×4×2 pixels in 32 bytes');
    const short = { data: Buffer.alloc(10), raw: { width: 4, height: 4, channels: 3 } };
    await expect(encodePng(short)).rejects.toThrow('only 8-bit grey, RGB or RGBA pixels');
  });
});
