/**
 * A sheet rendered by the figure server: a mark shown in one tile lands on its pixels there, every
 * pixel is where the whole overlay over the margin and the tiles puts it, and a sheet drawn again
 * with new marks reuses its decoded band and tiles.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import type { RouteContext } from '../server/http/http';
import { loadPicture } from '../server/pictures/pictures';
import {
  clearRenderCaches,
  MARGIN_BACKGROUND,
  renderCacheStats,
  renderView
} from '../server/render/render';
import {
  applyMarkArgs,
  emptyRecord,
  PALETTE_HEX,
  toViewX,
  toViewY,
  viewGeometry,
  type ViewSpec
} from '../tools/vision';
import { difference, wholeOverlayOver } from './helpers/overlay-pixels';

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
