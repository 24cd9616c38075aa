/**
 * Vision views as PNG (or, for the model, JPEG), and the caches around them. ./render-canvas
 * draws a view's pixels (the only code that touches them): the overlay SVG (drawn by the pure
 * core) rasterized by resvg in parts (canvases as large as its marks and labels, see
 * `paneOverlayParts` and `sheetOverlayParts`) and composited over the picture.
 *
 * Pictures are decoded by ./render-decode, in one byte-bounded cache by fingerprint: views of the
 * whole picture (maps) straight to the view's size with JPEG shrink-on-load; close-ups and sheets
 * at full size but only the band of rows they show, so the next view of the same picture resizes
 * straight from its pixels. Labels reach resvg as cached glyph outlines (./glyphs), drawn while
 * the decode runs, and the output is RGB: one composite pass and one encode per format (the PNG
 * by ./png-encode). Finished views are cached too.
 */
import { createHash } from 'node:crypto';

import sharp from 'sharp';

import {
  describeView,
  shrinkGeometry,
  viewGeometry,
  VisionError,
  type ViewGeometry,
  type ViewSpec,
  type VisionRecord
} from '../../tools/vision';
import { ByteCache, type ByteCacheStats } from './byte-cache';
import { HttpError } from '../http/http';
import type { Picture } from '../pictures/pictures';
import { forgetOverlays } from './overlay';
import { encodePng } from './png-encode';
import { drawCanvas } from './canvas';
import { clearDecodedPictures, decodedCacheStats } from './decode';
import type { RawImage } from './raw-image';
import { collectWhenIdle, Semaphore, type RenderLane } from './queue';
import { stageEnded } from './stages';

export { MARGIN_BACKGROUND } from './canvas';
export { DECODED_CACHE_BYTES, DECODE_ONCE_BYTES } from './decode';

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

const renderedViews = new ByteCache<RenderedView>(VIEW_CACHE_BYTES, view => view.bytes.length);

/** What the caches hold, for the benchmark and the tests of their budgets. */
export function renderCacheStats(): { decoded: ByteCacheStats; views: ByteCacheStats } {
  return { decoded: decodedCacheStats(), views: renderedViews.stats };
}

/**
 * Empty the caches (`views`: only the rendered views, so the next view of a picture renders but
 * reuses its decode and the overlay's outlined labels and rasterized canvases): the benchmark's
 * cold and repeated runs, and tests that count renders.
 */
export function clearRenderCaches(which: 'all' | 'views' = 'all'): void {
  if (which === 'all') {
    clearDecodedPictures();
    forgetOverlays();
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

async function encodeView(canvas: RawImage, format: ViewFormat): Promise<Buffer> {
  const bytes = await (format === 'model'
    ? sharp(canvas.data, { raw: canvas.raw }).jpeg(MODEL_JPEG).toBuffer()
    : encodePng(canvas));
  stageEnded('encoded');
  return bytes;
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
