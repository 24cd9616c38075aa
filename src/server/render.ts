/**
 * Vision views as PNG (or, for the model, JPEG): the overlay SVG (drawn by the pure core) is
 * rasterized by resvg at output size and composited over the picture. The only module that touches
 * pixels.
 *
 * A picture is decoded in two places, both kept in one byte-bounded cache by fingerprint: views of
 * the whole picture (maps) by `wholeAtPaneSize`, straight to the view's size with JPEG
 * shrink-on-load; close-ups and sheets by `decodeRows`, at full size but only the band of rows
 * they show, so the next view of the same picture resizes straight from its pixels. Labels reach
 * resvg as cached glyph outlines (./glyphs), drawn while the decode runs, and the output is RGB:
 * one composite pass and one encode per format. Finished views are cached too.
 */
import { createHash } from 'node:crypto';

import sharp, { type KernelEnum, type OverlayOptions, type Sharp } from 'sharp';

import {
  describeView,
  drawGeometry,
  paneSampling,
  viewGeometry,
  VisionError,
  type Pane,
  type ViewGeometry,
  type ViewSpec,
  type VisionRecord
} from '../tools/vision';
import { ByteCache, type ByteCacheStats } from './byte-cache';
import { HttpError } from './http';
import { collectWhenIdle, Semaphore } from './render-queue';
import { overlayGlyphs, rasterizeOverlay } from './overlay';
import { LIMIT_INPUT_PIXELS, type Picture } from './pictures';

/** Renders running at once; more wait their turn, so memory stays bounded under load. */
export const RENDER_CONCURRENCY = 2;

/**
 * Bytes of decoded pictures kept, per fingerprint and decode scale: a conversation draws the map,
 * then close-ups and sheets of the same picture, and each of those would otherwise decode it again.
 */
export const DECODED_CACHE_BYTES = 96 * 1024 * 1024;

/**
 * Pictures whose decoded pixels fit in half the cache are decoded once and kept; larger ones are
 * decoded per view (and per sheet tile), trading time for memory (100 Mpx decoded is 300 MB).
 */
export const DECODE_ONCE_BYTES = DECODED_CACHE_BYTES / 2;

/** Bytes of rendered views kept, so a view asked for again (a reopened notebook) costs no render. */
export const VIEW_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * zlib level of output PNGs, with adaptive row filters. libvips deflates with zlib-ng, whose level
 * 1 is a faster, weaker algorithm: level 2 with filters is the lowest that is no larger than
 * Pillow's PNG of the same pixels at the same level (bench/vision.mjs measures both).
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

// libvips' own operation cache would keep decoded pictures a second time, outside any budget this
// module can see; the caches below hold what is worth keeping (sharp's advice for servers).
sharp.cache(false);

/** Decoded pixels of a view's base, before the overlay. */
interface RawImage {
  readonly data: Buffer;
  readonly raw: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
}

/** One rendered view. */
export interface RenderedView {
  /** The encoded view, as `mime` says. */
  readonly bytes: Buffer;
  readonly mime: 'image/png' | 'image/jpeg';
  readonly width: number;
  readonly height: number;
  readonly caption: string;
}

// autoOrient: pixels are drawn the way the EXIF orientation says, as browsers show them and as
// readHeader measures them, so marks land where the user and the model see the picture.
const decodeOptions = {
  limitInputPixels: LIMIT_INPUT_PIXELS,
  failOn: 'warning',
  autoOrient: true
} as const;

function decodeError(picture: Picture, error: unknown): unknown {
  // Only libvips' own failures are the picture's fault; a bug in this module must not pass for one.
  if (!(error instanceof Error) || error instanceof HttpError || error.constructor !== Error) {
    return error;
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new HttpError(
    422,
    `${picture.address} could not be decoded (${reason.trim()}); it may be truncated or corrupt. Re-save it as PNG or JPEG and mark it again.`,
    'corrupt-picture'
  );
}

function kernelFor(pane: Pane): keyof KernelEnum {
  switch (paneSampling(pane)) {
    case 'reduced':
      return 'lanczos3';
    // Catmull-Rom: sharper than Mitchell, and at large factors without Lanczos' ringing around
    // the hard edges of text and lines.
    case 'smooth':
      return 'cubic';
    case 'pixel-grid':
      return 'nearest';
  }
}

/**
 * A pane's region of the picture, resized to the pane. `top` is the picture row of the image's
 * first row (a band of decoded rows starts below the picture's top).
 */
function resizePane(image: Sharp, pane: Pane, top = 0): Sharp {
  const { region } = pane;
  return image
    .extract({
      left: region.x0,
      top: region.y0 - top,
      width: region.x1 - region.x0,
      height: region.y1 - region.y0
    })
    .resize(pane.width, pane.height, { fit: 'fill', kernel: kernelFor(pane) });
}

/** Decoded pixels of picture rows [top, top + raw.height) (the whole picture when top is 0). */
interface DecodedRows extends RawImage {
  readonly top: number;
}

const decodedPictures = new ByteCache<DecodedRows>(DECODED_CACHE_BYTES, image => image.data.length);

function rowsPrefix(picture: Picture): string {
  return `${picture.sha256}/rows/`;
}

/** Cached full-size pixels that cover picture rows [top, bottom), if any. */
function cachedRows(picture: Picture, top: number, bottom: number): DecodedRows | undefined {
  return decodedPictures.find(
    rowsPrefix(picture),
    rows => rows.top <= top && rows.top + rows.raw.height >= bottom
  );
}

/**
 * Full-size pixels of picture rows [top, bottom) (at least), as opaque sRGB (transparency flattened
 * on white), kept in a byte-bounded cache by fingerprint; `undefined` when the rows would take
 * more than {@link DECODE_ONCE_BYTES}: the caller decodes from the file per view.
 *
 * Only the band of rows the view needs is decoded: libjpeg skips the rows above it without their
 * inverse DCT and stops below it, so a close-up near the top of a photo costs a fifth of a full
 * decode. A later view outside the cached band decodes the band that covers both, which then
 * replaces it: a conversation's views converge on one decode of the picture.
 */
async function decodeRows(
  picture: Picture,
  top: number,
  bottom: number
): Promise<DecodedRows | undefined> {
  const prefix = rowsPrefix(picture);
  const ends = (rows: DecodedRows): number => rows.top + rows.raw.height;
  const cached = decodedPictures.find(prefix, () => true);
  const rowBytes = picture.width * 3;
  let from = top;
  let to = bottom;
  if (
    cached &&
    (Math.max(to, ends(cached)) - Math.min(from, cached.top)) * rowBytes <= DECODE_ONCE_BYTES
  ) {
    from = Math.min(from, cached.top);
    to = Math.max(to, ends(cached));
  }
  if ((to - from) * rowBytes > DECODE_ONCE_BYTES) {
    return undefined;
  }
  const key = `${prefix}${from}-${to}`;
  const rows = await decodedPictures.getOrCreate(key, async () => ({
    ...(await toRaw(
      sharp(picture.bytes, decodeOptions)
        .extract({ left: 0, top: from, width: picture.width, height: to - from })
        .flatten({ background: '#ffffff' })
    )),
    top: from
  }));
  if (cached && cached !== rows && cached.top >= from && ends(cached) <= to) {
    // The new band holds every row of the old one: keeping both would spend the budget twice.
    decodedPictures.delete(`${prefix}${cached.top}-${ends(cached)}`);
  }
  return rows;
}

/**
 * The whole picture at a pane's size, decoded straight from the file in one libvips pass (JPEG
 * shrink-on-load to the smallest scale that still covers the pane, then one resize) and kept by
 * fingerprint and size: the next map of the picture (new marks, another record) costs no decode
 * and no resize, and the cache holds the view's pixels (2.4 MB for a map), not a larger decode.
 */
function wholeAtPaneSize(picture: Picture, pane: Pane): Promise<RawImage> {
  const kernel = kernelFor(pane);
  return decodedPictures.getOrCreate(
    `${picture.sha256}/whole/${pane.width}x${pane.height}/${kernel}`,
    async () => ({
      ...(await toRaw(
        sharp(picture.bytes, decodeOptions)
          .resize(pane.width, pane.height, { fit: 'fill', kernel })
          .flatten({ background: '#ffffff' })
      )),
      top: 0
    })
  );
}

/**
 * Each pane of a view resized from one band of decoded rows covering all of them (a sheet's tiles
 * share it), or, for pictures too large to keep, each from the file.
 */
function resizePanes(picture: Picture, panes: readonly Pane[]): Promise<RawImage[]> {
  const top = Math.min(...panes.map(pane => pane.region.y0));
  const bottom = Math.max(...panes.map(pane => pane.region.y1));
  const resizeFrom = (rows: DecodedRows | undefined): Promise<RawImage[]> =>
    Promise.all(
      panes.map(pane =>
        toRaw(
          rows
            ? resizePane(sharp(rows.data, { raw: rows.raw }), pane, rows.top)
            : resizePane(fromFile(picture), pane)
        )
      )
    );
  // Cached rows start resizing at once, before the caller goes on to draw the overlay.
  const cached = cachedRows(picture, top, bottom);
  return cached ? resizeFrom(cached) : decodeRows(picture, top, bottom).then(resizeFrom);
}

/** A view's source straight from the file, for pictures too large to keep decoded. */
function fromFile(picture: Picture): Sharp {
  return sharp(picture.bytes, decodeOptions).flatten({ background: '#ffffff' });
}

async function toRaw(image: Sharp): Promise<RawImage> {
  const out = await image.toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: out.data, raw: out.info };
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
 * The view's canvas: the margin background with each pane's pixels copied to the pane's place,
 * so rulers drawn in the margin never cover the picture. Panes never overlap and are opaque, so
 * placing them is a copy, not a blend (one libvips composite pass per tile cost more than the
 * rest of a sheet).
 */
function layOutPanes(geometry: ViewGeometry, panes: readonly RawImage[]): RawImage {
  const { width, height } = geometry;
  const background = MARGIN_BACKGROUND;
  const data = Buffer.alloc(width * height * 3).fill(
    Buffer.from([background.r, background.g, background.b])
  );
  geometry.panes.forEach((pane, index) => {
    const { data: pixels, raw: info } = panes[index];
    if (
      info.channels !== 3 ||
      info.width !== pane.width ||
      info.height !== pane.height ||
      pane.left < 0 ||
      pane.top < 0 ||
      pane.left + pane.width > width ||
      pane.top + pane.height > height
    ) {
      throw new Error(`pane ${index} is ${info.width}×${info.height}×${info.channels}`);
    }
    const row = pane.width * 3;
    for (let y = 0; y < pane.height; y++) {
      pixels.copy(data, ((pane.top + y) * width + pane.left) * 3, y * row, (y + 1) * row);
    }
  });
  return { data, raw: { width, height, channels: 3 } };
}

const renderedViews = new ByteCache<RenderedView>(VIEW_CACHE_BYTES, view => view.bytes.length);

/** What the caches hold, for the benchmark and the tests of their budgets. */
export function renderCacheStats(): { decoded: ByteCacheStats; views: ByteCacheStats } {
  return { decoded: decodedPictures.stats, views: renderedViews.stats };
}

/**
 * Empty the caches (`views`: only the rendered views, so the next view of a picture renders but
 * reuses its decode): the benchmark's cold and repeated runs, and tests that count renders.
 */
export function clearRenderCaches(which: 'all' | 'views' = 'all'): void {
  if (which === 'all') {
    decodedPictures.clear();
  }
  renderedViews.clear();
}

/** Options of {@link renderView}. */
export interface RenderOptions {
  /** `png` (the default) for the chat, `model` for a vision request. */
  readonly format?: ViewFormat;
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
 * The overlay (premultiplied RGBA, as resvg draws it) over an opaque RGB canvas, in place: the
 * canvas is always the view's own (laid out by `layOutPanes`, never a cached picture), so copying
 * it first would only cost a pass over the view. Most overlay pixels are empty and most of the
 * rest opaque, so a plain loop skips or copies them; libvips' composite converted every pixel of
 * both layers and cost as much as the PNG encode of a map.
 */
function compositeOver(base: RawImage, overlay: OverlayOptions): RawImage {
  const pixels = overlay.input;
  const { width, height, channels } = base.raw;
  if (
    !Buffer.isBuffer(pixels) ||
    channels !== 3 ||
    overlay.raw?.channels !== 4 ||
    !overlay.raw.premultiplied ||
    overlay.raw.width !== width ||
    overlay.raw.height !== height ||
    pixels.length !== width * height * 4
  ) {
    throw new Error(`cannot composite this overlay over a ${width}×${height}×${channels} base`);
  }
  const out = base.data;
  for (let i = 0, j = 0; i < pixels.length; i += 4, j += 3) {
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
  return { data: out, raw: base.raw };
}

async function encodeView(canvas: RawImage, format: ViewFormat): Promise<Buffer> {
  const image = sharp(canvas.data, { raw: canvas.raw });
  return format === 'model'
    ? image.jpeg(MODEL_JPEG).toBuffer()
    : image.png({ compressionLevel: PNG_COMPRESSION_LEVEL, adaptiveFiltering: true }).toBuffer();
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
  let geometry: ViewGeometry;
  try {
    geometry = viewGeometry(spec, record, picture);
  } catch (error) {
    throw error instanceof VisionError ? new HttpError(400, error.message, error.code) : error;
  }
  const recordHash = createHash('sha256').update(JSON.stringify(record)).digest('hex');
  const view = `${picture.sha256}/${recordHash}/${JSON.stringify(spec)}`;
  return renderedViews.getOrCreate(`${format}/${view}`, () =>
    renders.use(async () => {
      try {
        const canvas = await sharedCanvas(view, () => drawCanvas(picture, geometry, record));
        return {
          bytes: await encodeView(canvas, format),
          mime: format === 'model' ? 'image/jpeg' : 'image/png',
          width: geometry.width,
          height: geometry.height,
          caption: describeView(geometry, record, picture)
        } satisfies RenderedView;
      } finally {
        collectWhenIdle(renders);
      }
    })
  );
}

async function drawCanvas(
  picture: Picture,
  geometry: ViewGeometry,
  record: VisionRecord
): Promise<RawImage> {
  // The decode starts first (libvips queues it on libuv's pool at once), so drawing the overlay's
  // SVG on this thread, then rasterizing it on the pool, both overlap it.
  const base = (
    geometry.kind === 'sheet'
      ? resizePanes(picture, geometry.panes).then(tiles => layOutPanes(geometry, tiles))
      : renderSinglePane(picture, geometry)
  ).catch((error: unknown) => {
    throw decodeError(picture, error);
  });
  const overlay = (async () =>
    rasterizeOverlay(overlayGlyphs().outlineText(drawGeometry(geometry, record)), geometry))();
  const [layer, canvas] = await Promise.all([overlay, base]);
  return compositeOver(canvas, layer);
}
