/**
 * Vision views as PNG (or, for the model, JPEG): the overlay SVG (drawn by the pure core) is
 * rasterized by resvg in parts (canvases as large as its marks and labels, see
 * `paneOverlayParts` and `sheetOverlayParts`) and composited over the picture. The only module
 * that touches pixels.
 *
 * Pictures are decoded by ./render-decode, in one byte-bounded cache by fingerprint: views of the
 * whole picture (maps) straight to the view's size with JPEG shrink-on-load; close-ups and sheets
 * at full size but only the band of rows they show, so the next view of the same picture resizes
 * straight from its pixels. Labels reach
 * resvg as cached glyph outlines (./glyphs), drawn while the decode runs, and the output is RGB:
 * one composite pass and one encode per format (the PNG by ./png-encode). Finished views are cached
 * too.
 */
import { createHash } from 'node:crypto';

import sharp, { type OverlayOptions } from 'sharp';

import {
  describeView,
  drawGeometry,
  paneOverlayParts,
  sheetOverlayParts,
  shrinkGeometry,
  viewGeometry,
  VisionError,
  type Pane,
  type ViewGeometry,
  type ViewRect,
  type ViewSpec,
  type VisionRecord
} from '../tools/vision';
import { ByteCache, type ByteCacheStats } from './byte-cache';
import { HttpError } from './http';
import { overlayGlyphs, rasterizeOverlay, rasterizeOverlayParts } from './overlay';
import type { Picture } from './pictures';
import { allocatePixels, encodePng } from './png-encode';
import {
  clearDecodedPictures,
  decodedCacheStats,
  decodeError,
  resizePanes,
  resizeTiles,
  wholeAtPaneSize,
  type RawImage
} from './render-decode';
import { collectWhenIdle, Semaphore, type RenderLane } from './render-queue';

export { DECODED_CACHE_BYTES, DECODE_ONCE_BYTES } from './render-decode';

/** Renders running at once; more wait their turn, so memory stays bounded under load. */
export const RENDER_CONCURRENCY = 2;

/** Bytes of rendered views kept, so a view asked for again (a reopened notebook) costs no render. */
export const VIEW_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * The zlib level our PNGs are held to: no larger than Pillow's PNG of the same pixels at this level
 * (bench/vision.mjs measures both). Ours are written by ./png-encode, whose fast deflate has no
 * levels and is about a tenth smaller than that, in a fraction of the time libpng took at level 2.
 */
export const PNG_COMPRESSION_LEVEL = 2;

/**
 * JPEG of views sent to the model: the marks' digits stay legible (a test compares each digit with
 * every other) and their strokes keep their palette colour (a test reads them), at about a fifth of
 * the PNG's bytes. Chroma stays at full resolution: at 4:2:0 the thin red and yellow strokes lost
 * their colour. WebP was smaller still, but llama.cpp's image loader cannot read it.
 * bench/vision.mjs measures the candidates.
 */
export const MODEL_JPEG = { quality: 75, chromaSubsampling: '4:4:4' } as const;

/**
 * How a view is encoded: `png` (lossless, for the chat) or `model` (compact, for a vision request:
 * the model reads marks and numbers, not the last bit of each pixel).
 */
export type ViewFormat = 'png' | 'model';

/** Background of the ruler margins, and of sheets between and around tiles. */
export const MARGIN_BACKGROUND = { r: 32, g: 32, b: 32 } as const;

const renders = new Semaphore(RENDER_CONCURRENCY);

/**
 * libvips worker threads per render. sharp's default depends on the environment: 1 on glibc
 * unless MALLOC_ARENA_MAX is set, and then one per core. The figure server sets it (see
 * jupyterlab_figure_chat/runtime.py), so it ran with every core while a benchmark or test without
 * that variable ran with one: said here, both run what ships. Two threads split a resize (a
 * close-up's enlargement) and let the PNG's write-behind thread run beside the pipeline, at the
 * same CPU time; a JPEG's entropy decode stays on one thread whatever the number. More than two
 * would only add per-thread buffers: two renders already run at once.
 */
export const RENDER_THREADS = 2;

// libvips' own operation cache would keep decoded pictures a second time, outside any budget this
// module can see; the caches below hold what is worth keeping (sharp's advice for servers).
sharp.cache(false);
sharp.concurrency(RENDER_THREADS);

/** One rendered view. */
export interface RenderedView {
  /** The encoded view, as `mime` says. */
  readonly bytes: Buffer;
  readonly mime: 'image/png' | 'image/jpeg';
  readonly width: number;
  readonly height: number;
  readonly caption: string;
  /** The view's own size, when it was drawn smaller for display (`RenderOptions.width`). */
  readonly shrunkFrom?: { readonly width: number; readonly height: number };
}

async function renderSinglePane(picture: Picture, geometry: ViewGeometry): Promise<RawImage> {
  const pane = geometry.panes[0];
  const { region } = pane;
  const whole =
    region.x0 === 0 &&
    region.y0 === 0 &&
    region.x1 === picture.width &&
    region.y1 === picture.height;
  if (whole) {
    return layOutPanes(geometry, [await wholeAtPaneSize(picture, pane)]);
  }
  return layOutPanes(geometry, await resizePanes(picture, geometry.panes));
}

/**
 * A view's canvas before any pane is placed: the margin background everywhere, allocated for
 * ./png-encode to read in place.
 */
function blankCanvas(geometry: ViewGeometry): RawImage {
  const { width, height } = geometry;
  const background = MARGIN_BACKGROUND;
  const data = allocatePixels(width, height, 3).fill(
    Buffer.from([background.r, background.g, background.b])
  );
  return { data, raw: { width, height, channels: 3 } };
}

/**
 * A pane's pixels copied to its place on the canvas. Panes never overlap and are opaque, so
 * placing them is a copy, not a blend (one libvips composite pass per tile cost more than the
 * rest of a sheet).
 */
function placePane(canvas: RawImage, pane: Pane, image: RawImage, index: number): void {
  const { width, height } = canvas.raw;
  const { data: pixels, raw: info } = image;
  if (
    info.channels !== 3 ||
    info.width !== pane.width ||
    info.height !== pane.height ||
    pixels.length !== info.width * info.height * info.channels ||
    pane.left < 0 ||
    pane.top < 0 ||
    pane.left + pane.width > width ||
    pane.top + pane.height > height
  ) {
    throw new Error(`pane ${index} is ${info.width}×${info.height}×${info.channels}`);
  }
  const row = pane.width * 3;
  for (let y = 0; y < pane.height; y++) {
    pixels.copy(canvas.data, ((pane.top + y) * width + pane.left) * 3, y * row, (y + 1) * row);
  }
}

/**
 * The view's canvas: the margin background with each pane's pixels copied to the pane's place,
 * so rulers drawn in the margin never cover the picture.
 */
function layOutPanes(geometry: ViewGeometry, panes: readonly RawImage[]): RawImage {
  const canvas = blankCanvas(geometry);
  geometry.panes.forEach((pane, index) => placePane(canvas, pane, panes[index], index));
  return canvas;
}

const renderedViews = new ByteCache<RenderedView>(VIEW_CACHE_BYTES, view => view.bytes.length);

/** What the caches hold, for the benchmark and the tests of their budgets. */
export function renderCacheStats(): { decoded: ByteCacheStats; views: ByteCacheStats } {
  return { decoded: decodedCacheStats(), views: renderedViews.stats };
}

/**
 * Empty the caches (`views`: only the rendered views, so the next view of a picture renders but
 * reuses its decode): the benchmark's cold and repeated runs, and tests that count renders.
 */
export function clearRenderCaches(which: 'all' | 'views' = 'all'): void {
  if (which === 'all') {
    clearDecodedPictures();
  }
  renderedViews.clear();
}

/** Options of {@link renderView}. */
export interface RenderOptions {
  /** `png` (the default) for the chat, `model` for a vision request. */
  readonly format?: ViewFormat;
  /** `visible` goes before queued `background` renders (see render-queue). */
  readonly lane?: RenderLane;
  /**
   * Draw a view wider than this at this width instead, for display (the chat shows views at the
   * sidebar's width): the same picture as the full view shrunk, at a fraction of the work and
   * bytes. Its caption is the full view's.
   */
  readonly width?: number;
}

/**
 * Views being drawn, by view (without its format), as composited pixels: a view asked for in both
 * formats at once (the chat shows the PNG and sends the model its compact copy) is decoded,
 * rasterized and composited once. Only work in flight is held here; finished views live in the
 * view cache.
 */
const canvasesInFlight = new Map<string, Promise<RawImage>>();

function sharedCanvas(key: string, draw: () => Promise<RawImage>): Promise<RawImage> {
  let pending = canvasesInFlight.get(key);
  if (!pending) {
    pending = draw();
    canvasesInFlight.set(key, pending);
    const forget = (): void => {
      canvasesInFlight.delete(key);
    };
    pending.then(forget, forget);
  }
  return pending;
}

/**
 * Where an overlay layer lies on the view (`drawn`, which may reach past the view's edges), and
 * the part of it that is composited (`shows`, inside the view).
 */
interface LayerPlace {
  readonly drawn: ViewRect;
  readonly shows: ViewRect;
}

/**
 * The overlay (premultiplied RGBA, as resvg draws it) over an opaque RGB canvas, in place: the
 * canvas is always the view's own (laid out by `layOutPanes`, never a cached picture), so copying
 * it first would only cost a pass over the view. Most overlay pixels are empty and most of the
 * rest opaque, so a plain loop skips or copies them; libvips' composite converted every pixel of
 * both layers and cost as much as the PNG encode of a map. A layer smaller than the view (a part
 * of a sheet's overlay) lies at `place.drawn`, and only its pixels inside `place.shows` count.
 */
function compositeOver(base: RawImage, overlay: OverlayOptions, place?: LayerPlace): RawImage {
  const pixels = overlay.input;
  const { width, height, channels } = base.raw;
  const whole = { left: 0, top: 0, width, height };
  const { drawn, shows } = place ?? { drawn: whole, shows: whole };
  const inside = (outer: ViewRect, inner: ViewRect): boolean =>
    [inner.left, inner.top, inner.width, inner.height].every(Number.isInteger) &&
    inner.left >= outer.left &&
    inner.top >= outer.top &&
    inner.left + inner.width <= outer.left + outer.width &&
    inner.top + inner.height <= outer.top + outer.height;
  if (
    !Buffer.isBuffer(pixels) ||
    channels !== 3 ||
    overlay.raw?.channels !== 4 ||
    !overlay.raw.premultiplied ||
    overlay.raw.width !== drawn.width ||
    overlay.raw.height !== drawn.height ||
    pixels.length !== drawn.width * drawn.height * 4 ||
    !inside(whole, shows) ||
    !inside(drawn, shows)
  ) {
    throw new Error(`cannot composite this overlay over a ${width}×${height}×${channels} base`);
  }
  const out = base.data;
  for (let y = shows.top; y < shows.top + shows.height; y++) {
    let i = ((y - drawn.top) * drawn.width + shows.left - drawn.left) * 4;
    const end = i + shows.width * 4;
    for (let j = (y * width + shows.left) * 3; i < end; i += 4, j += 3) {
      const alpha = pixels[i + 3];
      if (alpha === 0) {
        continue;
      }
      // Premultiplied "over": the overlay's colour plus what shows through, rounded.
      const keep = 255 - alpha;
      out[j] = pixels[i] + (((out[j] * keep + 127) / 255) | 0);
      out[j + 1] = pixels[i + 1] + (((out[j + 1] * keep + 127) / 255) | 0);
      out[j + 2] = pixels[i + 2] + (((out[j + 2] * keep + 127) / 255) | 0);
    }
  }
  return { data: out, raw: base.raw };
}

async function encodeView(canvas: RawImage, format: ViewFormat): Promise<Buffer> {
  return format === 'model'
    ? sharp(canvas.data, { raw: canvas.raw }).jpeg(MODEL_JPEG).toBuffer()
    : encodePng(canvas);
}

/**
 * Render one view of a loaded picture. Bad views (unknown mark, out-of-bounds address) are 400s;
 * a picture that will not decode is a 422 that says what to do. A view already rendered for the
 * same picture version, record and spec comes from the view cache.
 */
export async function renderView(
  picture: Picture,
  spec: ViewSpec,
  record: VisionRecord,
  options: RenderOptions = {}
): Promise<RenderedView> {
  const format = options.format ?? 'png';
  let full: ViewGeometry;
  try {
    full = viewGeometry(spec, record, picture);
  } catch (error) {
    throw error instanceof VisionError ? new HttpError(400, error.message, error.code) : error;
  }
  const geometry = options.width ? shrinkGeometry(full, options.width) : full;
  const shrunk = geometry !== full;
  const recordHash = createHash('sha256').update(JSON.stringify(record)).digest('hex');
  const size = shrunk ? `@${geometry.width}` : '';
  const view = `${picture.sha256}/${recordHash}/${JSON.stringify(spec)}${size}`;
  return renderedViews.getOrCreate(`${format}/${view}`, () =>
    renders.use(async () => {
      try {
        const canvas = await sharedCanvas(view, () => drawCanvas(picture, geometry, record, full));
        return {
          bytes: await encodeView(canvas, format),
          mime: format === 'model' ? 'image/jpeg' : 'image/png',
          width: geometry.width,
          height: geometry.height,
          caption: describeView(full, record, picture),
          ...(shrunk ? { shrunkFrom: { width: full.width, height: full.height } } : {})
        } satisfies RenderedView;
      } finally {
        collectWhenIdle(renders);
      }
    }, options.lane)
  );
}

/**
 * A view's canvas: its panes' pixels laid out, and its overlay over them. A view drawn smaller
 * than its own geometry `full` (for display) has the full view's overlay SVG drawn at its size;
 * a full-size sheet is drawn in parts (`drawSheet`).
 */
async function drawCanvas(
  picture: Picture,
  geometry: ViewGeometry,
  record: VisionRecord,
  full: ViewGeometry = geometry
): Promise<RawImage> {
  if (geometry.kind === 'sheet' && geometry === full) {
    return drawSheet(picture, geometry, record);
  }
  // The decode starts first (libvips queues it on libuv's pool at once), so drawing the overlay's
  // SVG on this thread, then rasterizing it on the pool, both overlap it. The overlay is drawn in
  // parts, canvases as large as its marks and labels (see `paneOverlayParts`): a whole-view
  // layer cost the rasterizer and the compositor the view's area, most of it empty.
  const base = renderSinglePane(picture, geometry).catch((error: unknown) => {
    throw decodeError(picture, error);
  });
  if (geometry !== full) {
    // Drawn smaller than its own geometry (for display): the full view's overlay at this size.
    const overlay = (async () =>
      rasterizeOverlay(
        overlayGlyphs().outlineText(drawGeometry(full, record, geometry)),
        geometry
      ))();
    const [layer, canvas] = await Promise.all([overlay, base]);
    return compositeOver(canvas, layer);
  }
  const overlay = (async () => rasterizeOverlayParts(paneOverlayParts(geometry, record)))();
  const [layers, canvas] = await Promise.all([overlay, base]);
  for (const { canvas: where, layer } of layers) {
    compositeOver(canvas, layer, where);
  }
  return canvas;
}

/**
 * A sheet: its tiles resized from one decode (or kept from an earlier sheet), and its overlay
 * rasterized in parts (each tile's marks on a canvas of their own, its rulers on two strips)
 * while the picture decodes. Then, layer by layer in the overlay's order, each tile a layer
 * reaches is placed as soon as it is resized (while the others still are), and the layer
 * composited over it. A whole-view overlay cost the rasterizer a layer and a mask as large as
 * the view for every tile's clip, and an empty canvas of the view's size besides.
 */
async function drawSheet(
  picture: Picture,
  geometry: ViewGeometry,
  record: VisionRecord
): Promise<RawImage> {
  const tiles = resizeTiles(picture, geometry.panes).map(tile =>
    tile.catch((error: unknown) => {
      throw decodeError(picture, error);
    })
  );
  // Each tile is awaited below in its turn; one failing meanwhile must not go unhandled.
  tiles.forEach(tile => tile.catch(() => undefined));
  const overlay = (async () => rasterizeOverlayParts(sheetOverlayParts(geometry, record)))();
  overlay.catch(() => undefined);
  const canvas = blankCanvas(geometry);
  const placed = new Set<number>();
  const place = async (index: number): Promise<void> => {
    if (!placed.has(index)) {
      placePane(canvas, geometry.panes[index], await tiles[index], index);
      placed.add(index);
    }
  };
  for (const { canvas: where, layer } of await overlay) {
    // A layer goes over every tile it reaches, as the whole overlay was drawn over the picture.
    const { shows } = where;
    for (const [index, pane] of geometry.panes.entries()) {
      if (
        pane.left < shows.left + shows.width &&
        shows.left < pane.left + pane.width &&
        pane.top < shows.top + shows.height &&
        shows.top < pane.top + pane.height
      ) {
        await place(index);
      }
    }
    compositeOver(canvas, layer, where);
  }
  for (const index of geometry.panes.keys()) {
    await place(index);
  }
  return canvas;
}
