import sharp from 'sharp';

import { ByteCache } from '../server/render/byte-cache';
import type { Picture } from '../server/pictures/pictures';
import {
  clearRenderCaches,
  DECODED_CACHE_BYTES,
  renderCacheStats,
  renderView,
  VIEW_CACHE_BYTES
} from '../server/render/render';
import {
  applyMarkArgs,
  emptyRecord,
  toViewX,
  toViewY,
  viewGeometry,
  type Pane,
  type ViewSpec,
  type VisionRecord
} from '../tools/vision';

describe('ByteCache', () => {
  it('keeps its byte budget at every insert and evicts the least recently used', () => {
    const cache = new ByteCache<Buffer>(100, value => value.length);
    cache.set('a', Buffer.alloc(40));
    cache.set('b', Buffer.alloc(40));
    expect(cache.get('a')).toBeDefined(); // a is now more recent than b
    cache.set('c', Buffer.alloc(40));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.stats).toMatchObject({ entries: 2, bytes: 80, peak: 80 });
    cache.set('a', Buffer.alloc(10)); // replacing counts the new size only
    expect(cache.stats.bytes).toBe(50);
    cache.set('huge', Buffer.alloc(101)); // larger than the budget: not kept
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.stats.peak).toBeLessThanOrEqual(100);
  });

  it('finds the most recent entry under a prefix that a predicate accepts, and marks it used', () => {
    const cache = new ByteCache<Buffer>(100, value => value.length);
    cache.set('p/rows/0-10', Buffer.alloc(10));
    cache.set('p/rows/0-30', Buffer.alloc(30));
    cache.set('q/rows/0-40', Buffer.alloc(40));
    expect(cache.find('p/rows/', value => value.length >= 10)?.length).toBe(30);
    expect(cache.find('p/rows/', value => value.length < 20)?.length).toBe(10);
    expect(cache.find('p/rows/', value => value.length > 30)).toBeUndefined();
    // Found last, 0-10 is now the most recent: making room evicts q, then 0-30, and keeps it.
    cache.set('r', Buffer.alloc(70));
    expect(cache.get('q/rows/0-40')).toBeUndefined();
    expect(cache.get('p/rows/0-30')).toBeUndefined();
    expect(cache.get('p/rows/0-10')).toBeDefined();
  });

  it('shares one computation among concurrent callers and does not cache failures', async () => {
    const cache = new ByteCache<Buffer>(100, value => value.length);
    let made = 0;
    const make = async (): Promise<Buffer> => {
      made++;
      await new Promise(resolve => setImmediate(resolve));
      return Buffer.alloc(10);
    };
    const values = await Promise.all(Array.from({ length: 5 }, () => cache.getOrCreate('k', make)));
    expect(made).toBe(1);
    expect(new Set(values).size).toBe(1);
    await expect(
      cache.getOrCreate('bad', () => Promise.reject(new Error('decode failed')))
    ).rejects.toThrow('decode failed');
    expect(await cache.getOrCreate('bad', make)).toHaveLength(10);
  });
});

const W = 1600;
const H = 1200;

async function pictureOf(grey: number, format: 'jpeg' | 'png' = 'jpeg'): Promise<Picture> {
  const image = sharp({
    create: { width: W, height: H, channels: 3, background: { r: grey, g: grey, b: grey } }
  });
  const bytes = await (format === 'jpeg' ? image.jpeg() : image.png()).toBuffer();
  const sha256 = (grey.toString(16).padStart(2, '0') + format).padEnd(64, '0');
  return { address: `p${grey}.${format}`, bytes, sha256, width: W, height: H, format };
}

/** Nine white boxes in a row whose numbers (1–9) land on whole view pixels in the map (×0.64). */
function nineBoxes(address: string): VisionRecord {
  const marks = Array.from({ length: 9 }, (_, k) => {
    const x = 200 + 150 * k;
    return { at: `${x},400,${x + 100},500`, colour: 'white' as const };
  });
  return applyMarkArgs(emptyRecord(address), { marks }, { width: W, height: H }).record;
}

/** The window around mark k's number in the map: left of the box's top edge, above it. */
function digitWindow(data: Buffer, width: number, pane: Pane, k: number): number[] {
  const left = Math.round(toViewX(pane, 200 + 150 * k)) - 1;
  const baseline = Math.round(toViewY(pane, 400)) - 4;
  const out: number[] = [];
  for (let y = baseline - 14; y <= baseline + 1; y++) {
    for (let x = left; x < left + 12; x++) {
      const i = (y * width + x) * 3;
      out.push(data[i], data[i + 1], data[i + 2]);
    }
  }
  return out;
}

function distance(a: number[], b: number[]): number {
  return a.reduce((sum, v, i) => sum + (v - b[i]) ** 2, 0);
}

describe('render caches and encodings', () => {
  beforeEach(() => clearRenderCaches());

  it('serves a repeated view from the view cache, and a close-up from the decoded picture', async () => {
    const picture = await pictureOf(128);
    const record = nineBoxes(picture.address);
    const first = await renderView(picture, { kind: 'map' }, record);
    expect(await renderView(picture, { kind: 'map' }, record)).toBe(first);
    expect(renderCacheStats().views.entries).toBe(1);
    // The map keeps the picture at the map's pane size (RGB, inside the ruler margin), not a
    // larger decode.
    const [pane] = viewGeometry({ kind: 'map' }, record, picture).panes;
    expect(pane.width * pane.height).toBeLessThan(1024 * 768);
    expect(renderCacheStats().decoded).toMatchObject({
      entries: 1,
      bytes: pane.width * pane.height * 3
    });
    // A close-up needs the full-size decode, which its sheet then reuses: it decodes nothing and
    // keeps only its two tiles, for the next sheet of them.
    await renderView(picture, { kind: 'closeup', at: '#3' }, record);
    const decoded = renderCacheStats().decoded;
    const sheet: ViewSpec = { kind: 'sheet', at: ['#1', '#2'] };
    await renderView(picture, sheet, record);
    const tiles = viewGeometry(sheet, record, picture).panes;
    expect(renderCacheStats().decoded).toMatchObject({
      entries: decoded.entries + 2,
      bytes: decoded.bytes + tiles.reduce((sum, tile) => sum + tile.width * tile.height * 3, 0)
    });
    // Another record is another view, drawn over the map's cached pixels: no decode, no resize.
    const moved = nineBoxes(picture.address);
    const before = renderCacheStats().decoded;
    await renderView(picture, { kind: 'map' }, { ...moved, marks: moved.marks.slice(1) });
    expect(renderCacheStats().views.entries).toBe(4);
    expect(renderCacheStats().decoded).toMatchObject({
      entries: before.entries,
      bytes: before.bytes
    });
  });

  it('decodes only the rows a close-up shows, and widens that band for later views', async () => {
    // Every row a different grey: a close-up drawn from the wrong rows of a band would show it.
    const rows = Buffer.alloc(W * H * 3);
    for (let y = 0; y < H; y++) {
      rows.fill((y * 7) % 251, y * W * 3, (y + 1) * W * 3);
    }
    const bytes = await sharp(rows, { raw: { width: W, height: H, channels: 3 } })
      .jpeg()
      .toBuffer();
    const picture: Picture = {
      address: 'rows.jpg',
      bytes,
      sha256: 'ab'.repeat(32),
      width: W,
      height: H,
      format: 'jpeg'
    };
    const marks = [
      { at: '300,100,400,200', colour: 'white' as const },
      { at: '300,1000,400,1100', colour: 'white' as const }
    ];
    const record = applyMarkArgs(emptyRecord(picture.address), { marks }, picture).record;
    const rowBytes = W * 3;
    const top = await renderView(picture, { kind: 'closeup', at: '#1' }, record);
    const first = renderCacheStats().decoded;
    // A band around the top mark, not the whole picture.
    expect(first.entries).toBe(1);
    expect(first.bytes).toBeLessThan((H / 2) * rowBytes);
    await renderView(picture, { kind: 'closeup', at: '#2' }, record);
    // The band that covers both replaced the first one.
    const widened = renderCacheStats().decoded;
    expect(widened.entries).toBe(1);
    expect(widened.bytes).toBeGreaterThan(first.bytes);
    expect(widened.bytes).toBeLessThanOrEqual(H * rowBytes);
    // The top close-up again, from the widened band: the same pixels as from its own band.
    clearRenderCaches('views');
    const again = await renderView(picture, { kind: 'closeup', at: '#1' }, record);
    expect(renderCacheStats().decoded.bytes).toBe(widened.bytes);
    expect(again.bytes.equals(top.bytes)).toBe(true);
  });

  it('draws the same pixels from a cached decode as from a cold one', async () => {
    const picture = await pictureOf(100);
    const record = nineBoxes(picture.address);
    const specs: ViewSpec[] = [
      { kind: 'map' },
      { kind: 'closeup', at: '#5' },
      { kind: 'sheet', at: ['#1', '#9'] }
    ];
    for (const spec of specs) {
      clearRenderCaches();
      const cold = await renderView(picture, spec, record);
      clearRenderCaches('views');
      const warm = await renderView(picture, spec, record);
      expect(warm).not.toBe(cold);
      expect(warm.bytes.equals(cold.bytes)).toBe(true);
    }
  });

  it('keeps both byte budgets under 50 concurrent renders of 20 pictures', async () => {
    const pictures = await Promise.all(
      Array.from({ length: 20 }, (_, i) => pictureOf(40 + 8 * i, i % 2 ? 'png' : 'jpeg'))
    );
    const views = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const picture = pictures[i % pictures.length];
        const record = nineBoxes(picture.address);
        const spec =
          i % 3 === 0
            ? ({ kind: 'map' } as const)
            : ({ kind: 'closeup', at: `#${1 + (i % 9)}` } as const);
        return renderView(picture, spec, record);
      })
    );
    expect(views).toHaveLength(50);
    const { decoded, views: rendered } = renderCacheStats();
    // 20 full-size decodes are 115 MB: the cache had to evict to stay inside its budget.
    expect(decoded.peak).toBeLessThanOrEqual(DECODED_CACHE_BYTES);
    expect(decoded.entries).toBeLessThan(pictures.length * 2);
    expect(rendered.peak).toBeLessThanOrEqual(VIEW_CACHE_BYTES);
  }, 60_000);

  it('keeps every mark number legible in the model encoding (each digit nearest its own)', async () => {
    const picture = await pictureOf(128, 'png');
    const record = nineBoxes(picture.address);
    const png = await renderView(picture, { kind: 'map' }, record);
    const model = await renderView(picture, { kind: 'map' }, record, { format: 'model' });
    expect(png.mime).toBe('image/png');
    expect(model.mime).toBe('image/jpeg');
    expect((await sharp(model.bytes).metadata()).format).toBe('jpeg');
    const lossless = await sharp(png.bytes).raw().toBuffer();
    const lossy = await sharp(model.bytes).raw().toBuffer();
    const pane = viewGeometry({ kind: 'map' }, record, picture).panes[0];
    const truth = Array.from({ length: 9 }, (_, k) => digitWindow(lossless, png.width, pane, k));
    for (let k = 0; k < 9; k++) {
      const seen = digitWindow(lossy, model.width, pane, k);
      const own = distance(seen, truth[k]);
      const others = truth.filter((_, j) => j !== k).map(t => distance(seen, t));
      // The digit drew something, and the compressed copy is far closer to it than to any other.
      expect(distance(truth[k], Array(truth[k].length).fill(128))).toBeGreaterThan(0);
      expect(own).toBeLessThan(Math.min(...others) / 4);
    }
  });
});
