/**
 * Vision views as PNG: the overlay SVG (drawn by the pure core) is rasterized by resvg at output
 * size and composited by sharp over the picture. The only module that touches pixels.
 *
 * Full views resize the picture directly, so JPEG shrink-on-load decodes at the smallest size that
 * still covers the view; close-ups extract their region, then resize. Labels reach resvg as cached
 * glyph outlines (./glyphs), and the output is RGB: one composite pass and one PNG encode per view.
 */
import { join } from 'node:path';

import { renderAsync, type ResvgRenderOptions } from '@resvg/resvg-js';
import sharp, { type KernelEnum, type OverlayOptions, type Sharp } from 'sharp';

import {
  describeView,
  drawGeometry,
  FONT_FAMILY,
  viewGeometry,
  VisionError,
  type Pane,
  type ViewGeometry,
  type ViewSpec,
  type VisionRecord
} from '../tools/vision';
import { GlyphCache } from './glyphs';
import { HttpError } from './http';
import { LIMIT_INPUT_PIXELS, type Picture } from './pictures';
import { fontDirectory } from './svg-fonts';

/** Renders running at once; more wait their turn, so memory stays bounded under load. */
export const RENDER_CONCURRENCY = 2;

/**
 * Pictures up to this many pixels are decoded once for a whole sheet; larger ones are decoded per
 * tile, trading time for memory (a decoded 100 Mpx picture would be 300 MB).
 */
export const SHEET_DECODE_ONCE_PIXELS = 40_000_000;

/** zlib level of output PNGs: views are sent once and looked at, so speed beats the last bytes. */
export const PNG_COMPRESSION_LEVEL = 1;

/** Background of sheets, between and around tiles. */
const SHEET_BACKGROUND = { r: 32, g: 32, b: 32 };

/** A bounded queue: at most `limit` tasks run at once. */
export class Semaphore {
  private _running = 0;
  private readonly _waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Run `task` when a slot is free. */
  async use<T>(task: () => Promise<T>): Promise<T> {
    if (this._running >= this.limit) {
      await new Promise<void>(resolve => this._waiting.push(resolve));
    } else {
      this._running++;
    }
    try {
      return await task();
    } finally {
      const next = this._waiting.shift();
      // The slot passes straight to the next waiter, so `_running` stays the same.
      if (next) {
        next();
      } else {
        this._running--;
      }
    }
  }
}

const renders = new Semaphore(RENDER_CONCURRENCY);

let overlayOptions: ResvgRenderOptions | undefined;

/** resvg options for overlays, resolved once: the bundled DejaVu Sans only, no system fonts. */
function resvgOverlayOptions(): ResvgRenderOptions {
  overlayOptions ??= {
    font: {
      loadSystemFonts: false,
      fontFiles: [join(fontDirectory(), 'DejaVuSans.ttf')],
      defaultFontFamily: FONT_FAMILY,
      sansSerifFamily: FONT_FAMILY
    },
    fitTo: { mode: 'original' },
    logLevel: 'off'
  };
  return overlayOptions;
}

let glyphCache: GlyphCache | undefined;

/** Labels drawn from cached outlines, pixel-identical to resvg's text and without its shaping. */
function overlayGlyphs(): GlyphCache {
  glyphCache ??= new GlyphCache(resvgOverlayOptions());
  return glyphCache;
}

/** Decoded pixels of a view's base, before the overlay. */
interface RawImage {
  readonly data: Buffer;
  readonly raw: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
}

/** One rendered view. */
export interface RenderedView {
  readonly png: Buffer;
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

async function rasterizeOverlay(svg: string, geometry: ViewGeometry): Promise<OverlayOptions> {
  const image = await renderAsync(svg, resvgOverlayOptions());
  if (image.width !== geometry.width || image.height !== geometry.height) {
    throw new Error(
      `overlay rendered at ${image.width}×${image.height}, not ${geometry.width}×${geometry.height}`
    );
  }
  // resvg's pixels are premultiplied RGBA; saying so spares sharp a conversion and keeps edges exact.
  return {
    input: image.pixels,
    raw: { width: image.width, height: image.height, channels: 4, premultiplied: true }
  };
}

function kernelFor(pane: Pane): keyof KernelEnum {
  // Enlarged close-ups show the real pixels as blocks; smoothing would invent detail.
  return Math.min(pane.sx, pane.sy) >= 2 ? 'nearest' : 'lanczos3';
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
  return source
    .resize(pane.width, pane.height, { fit: 'fill', kernel: kernelFor(pane) })
    .flatten({ background: '#ffffff' });
}

async function renderSinglePane(picture: Picture, geometry: ViewGeometry): Promise<RawImage> {
  const pane = geometry.panes[0];
  const { region } = pane;
  const whole =
    region.x0 === 0 &&
    region.y0 === 0 &&
    region.x1 === picture.width &&
    region.y1 === picture.height;
  const base = await resizePane(sharp(picture.bytes, decodeOptions), pane, whole)
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: base.data, raw: base.info };
}

/**
 * A sheet's picture: each tile resized by libvips, then its rows copied into place on the
 * background. Tiles never overlap and are opaque, so placing them is a copy, not a blend (one
 * libvips composite pass per tile cost more than the rest of the sheet).
 */
async function renderSheet(picture: Picture, geometry: ViewGeometry): Promise<RawImage> {
  let source: () => Sharp = () => sharp(picture.bytes, decodeOptions);
  if (picture.width * picture.height <= SHEET_DECODE_ONCE_PIXELS) {
    const decoded = await sharp(picture.bytes, decodeOptions)
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { width, height, channels } = decoded.info;
    source = () => sharp(decoded.data, { raw: { width, height, channels } });
  }
  const tiles = await Promise.all(
    geometry.panes.map(pane =>
      resizePane(source(), pane, false)
        .toColourspace('srgb')
        .raw()
        .toBuffer({ resolveWithObject: true })
    )
  );
  const { width, height } = geometry;
  const background = SHEET_BACKGROUND;
  const data = Buffer.alloc(width * height * 3).fill(
    Buffer.from([background.r, background.g, background.b])
  );
  geometry.panes.forEach((pane, index) => {
    const { data: tile, info } = tiles[index];
    if (
      info.channels !== 3 ||
      info.width !== pane.width ||
      info.height !== pane.height ||
      pane.left < 0 ||
      pane.top < 0 ||
      pane.left + pane.width > width ||
      pane.top + pane.height > height
    ) {
      throw new Error(`sheet tile ${index} is ${info.width}×${info.height}×${info.channels}`);
    }
    const row = pane.width * 3;
    for (let y = 0; y < pane.height; y++) {
      tile.copy(data, ((pane.top + y) * width + pane.left) * 3, y * row, (y + 1) * row);
    }
  });
  return { data, raw: { width, height, channels: 3 } };
}

/**
 * Render one view of a loaded picture. Bad views (unknown mark, out-of-bounds address) are 400s;
 * a picture that will not decode is a 422 that says what to do.
 */
export async function renderView(
  picture: Picture,
  spec: ViewSpec,
  record: VisionRecord
): Promise<RenderedView> {
  let geometry: ViewGeometry;
  try {
    geometry = viewGeometry(spec, record, picture);
  } catch (error) {
    throw error instanceof VisionError ? new HttpError(400, error.message, error.code) : error;
  }
  const svg = overlayGlyphs().outlineText(drawGeometry(geometry, record));
  return renders.use(async () => {
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
    const canvas = sharp(base.data, { raw: base.raw }).composite([overlay]);
    const png = await canvas
      // The overlay adds an alpha band; views are opaque, and RGB is a quarter less to deflate.
      .removeAlpha()
      .png({ compressionLevel: PNG_COMPRESSION_LEVEL })
      .toBuffer();
    return {
      png,
      width: geometry.width,
      height: geometry.height,
      caption: describeView(geometry, record, picture)
    };
  });
}
