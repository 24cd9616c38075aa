/**
 * Vision views as PNG (or, for the model, JPEG): the overlay SVG (drawn by the pure core) is
 * rasterized by resvg at output size and composited by sharp over the picture. The only module
 * that touches pixels.
 *
 * A picture is decoded in one place, `decodePicture`: for views of the whole picture at the
 * smallest JPEG shrink-on-load scale that still covers the view, for close-ups and sheets at full
 * size, and kept in a byte-bounded cache, so the next view of the same picture resizes straight
 * from its pixels. Labels reach resvg as cached glyph outlines (./glyphs), and the output is RGB:
 * one composite pass and one encode per view. Finished views are cached too.
 */
import { createHash } from 'node:crypto';

import sharp, { type KernelEnum, type Sharp } from 'sharp';

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
 * JPEG quality of views sent to the model: the marks' digits stay legible (a test compares each
 * digit with every other), at about a quarter of the PNG's bytes. 4:4:4 keeps the colour of thin
 * strokes; WebP was smaller still but more than ten times slower to encode (bench/vision.mjs).
 */
export const MODEL_JPEG_QUALITY = 85;

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

function resizePane(image: Sharp, pane: Pane, whole: boolean): Sharp {
  const { region } = pane;
  const source = whole
    ? image
    : image.extract({
        left: region.x0,
        top: region.y0,
        width: region.x1 - region.x0,
        height: region.y1 - region.y0
      });
  return source.resize(pane.width, pane.height, { fit: 'fill', kernel: kernelFor(pane) });
}

const decodedPictures = new ByteCache<RawImage>(DECODED_CACHE_BYTES, image => image.data.length);

/**
 * The JPEG shrink-on-load factor for a view of the whole picture: the largest of 8, 4 and 2 that
 * still leaves at least the view's pixels (as sharp picks it when it resizes straight from the
 * file). Other formats, and views of a region, decode at full size.
 */
function decodeShrink(picture: Picture, pane: Pane, whole: boolean): number {
  if (!whole || picture.format !== 'jpeg') {
    return 1;
  }
  const ratio = Math.min(picture.width / pane.width, picture.height / pane.height);
  return [8, 4, 2].find(factor => ratio >= factor) ?? 1;
}

/**
 * The one place a picture is decoded: to opaque sRGB pixels (transparency flattened on white), at
 * 1/`shrink` of its size through JPEG shrink-on-load. Kept in a byte-bounded cache by fingerprint
 * and scale, unless the pixels would take more than {@link DECODE_ONCE_BYTES}: then `undefined`,
 * and the caller decodes from the file per view.
 */
async function decodePicture(picture: Picture, shrink: number): Promise<RawImage | undefined> {
  const width = Math.ceil(picture.width / shrink);
  const height = Math.ceil(picture.height / shrink);
  if (width * height * 3 > DECODE_ONCE_BYTES) {
    return undefined;
  }
  return decodedPictures.getOrCreate(`${picture.sha256}/${shrink}`, async () => {
    let image = sharp(picture.bytes, decodeOptions);
    if (shrink > 1) {
      // An exact power-of-two size: libjpeg's scaled decode gives it, so no resampling follows.
      image = image.resize(width, height, { fit: 'fill', kernel: 'nearest' });
    }
    const decoded = await image
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data: decoded.data, raw: decoded.info };
  });
}

/** A view's source: the cached decoded pixels, or the file for pictures too large to keep. */
function fromDecoded(decoded: RawImage | undefined, picture: Picture): Sharp {
  return decoded
    ? sharp(decoded.data, { raw: decoded.raw })
    : sharp(picture.bytes, decodeOptions).flatten({ background: '#ffffff' });
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
  const decoded = await decodePicture(picture, decodeShrink(picture, pane, whole));
  return layOutPanes(geometry, [
    await toRaw(resizePane(fromDecoded(decoded, picture), pane, whole))
  ]);
}

/** A sheet's picture: each tile resized by libvips, then laid out. */
async function renderSheet(picture: Picture, geometry: ViewGeometry): Promise<RawImage> {
  const decoded = await decodePicture(picture, 1);
  const tiles = await Promise.all(
    geometry.panes.map(pane => toRaw(resizePane(fromDecoded(decoded, picture), pane, false)))
  );
  return layOutPanes(geometry, tiles);
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

async function encodeView(canvas: Sharp, format: ViewFormat): Promise<Buffer> {
  // The overlay adds an alpha band; views are opaque, and RGB is a quarter less to encode.
  const opaque = canvas.removeAlpha();
  return format === 'model'
    ? opaque.jpeg({ quality: MODEL_JPEG_QUALITY, chromaSubsampling: '4:4:4' }).toBuffer()
    : opaque.png({ compressionLevel: PNG_COMPRESSION_LEVEL, adaptiveFiltering: true }).toBuffer();
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
  const key = `${picture.sha256}/${format}/${recordHash}/${JSON.stringify(spec)}`;
  return renderedViews.getOrCreate(key, () =>
    renders.use(async () => {
      try {
        return await drawView(picture, geometry, record, format);
      } finally {
        collectWhenIdle(renders);
      }
    })
  );
}

async function drawView(
  picture: Picture,
  geometry: ViewGeometry,
  record: VisionRecord,
  format: ViewFormat
): Promise<RenderedView> {
  const svg = overlayGlyphs().outlineText(drawGeometry(geometry, record));
  // The overlay rasterizes on libuv's pool while libvips decodes: the two overlap on two cores.
  const [overlay, base] = await Promise.all([
    rasterizeOverlay(svg, geometry),
    (geometry.kind === 'sheet'
      ? renderSheet(picture, geometry)
      : renderSinglePane(picture, geometry)
    ).catch((error: unknown) => {
      throw decodeError(picture, error);
    })
  ]);
  const bytes = await encodeView(sharp(base.data, { raw: base.raw }).composite([overlay]), format);
  return {
    bytes,
    mime: format === 'model' ? 'image/jpeg' : 'image/png',
    width: geometry.width,
    height: geometry.height,
    caption: describeView(geometry, record, picture)
  } satisfies RenderedView;
}
