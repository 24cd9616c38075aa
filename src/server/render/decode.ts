/**
 * Decoding for vision views: the picture's pixels at the scale and in the rows a view needs, kept
 * in one byte-bounded cache by fingerprint (./render renders views from them).
 */
import sharp, { type KernelEnum, type Sharp } from 'sharp';

import { paneSampling, type Pane } from '../../tools/vision';
import { ByteCache, type ByteCacheStats } from './byte-cache';
import { enlargeSmooth, type PixelRect } from './enlarge';
import type { RawImage } from './raw-image';
import { HttpError } from '../http/http';
import { LIMIT_INPUT_PIXELS, type Picture } from '../pictures/pictures';
import { stageEnded } from './stages';

/**
 * Bytes of decoded pictures kept, per fingerprint and decode scale: a conversation draws the map,
 * then close-ups and sheets of the same picture, and each of those would otherwise decode it again.
 */
export const DECODED_CACHE_BYTES = 96 * 1024 * 1024;

/**
 * Bands of rows whose decoded pixels fit in half the cache are decoded once and kept; larger ones
 * are decoded per view (and per sheet tile), trading time for memory (100 Mpx decoded is 300 MB).
 */
export const DECODE_ONCE_BYTES = DECODED_CACHE_BYTES / 2;

// autoOrient: pixels are drawn the way the EXIF orientation says, as browsers show them and as
// readHeader measures them, so marks land where the user and the model see the picture.
const decodeOptions = {
  limitInputPixels: LIMIT_INPUT_PIXELS,
  failOn: 'warning',
  autoOrient: true
} as const;

/** A failed decode as what the user can act on: a 422 that says to re-save the picture. */
export function decodeError(picture: Picture, error: unknown): unknown {
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

/** libvips' kernel for a pane it resizes (smooth enlargements are ./enlarge's). */
function kernelFor(pane: Pane): keyof KernelEnum {
  return paneSampling(pane) === 'pixel-grid' ? 'nearest' : 'lanczos3';
}

/** A pane's region of the picture, as a rectangle of an image whose first row is picture row `top`. */
function regionRect(pane: Pane, top = 0): PixelRect {
  const { region } = pane;
  return {
    left: region.x0,
    top: region.y0 - top,
    width: region.x1 - region.x0,
    height: region.y1 - region.y0
  };
}

/**
 * A pane's region of the picture, resized to the pane by libvips: reductions (Lanczos 3) and pixel
 * grids (nearest neighbour). `top` is the picture row of the image's first row (a band of decoded
 * rows starts below the picture's top).
 */
function resizePane(image: Sharp, pane: Pane, top = 0): Sharp {
  return image
    .extract(regionRect(pane, top))
    .resize(pane.width, pane.height, { fit: 'fill', kernel: kernelFor(pane) });
}

/**
 * A pane's region of decoded pixels (rows from picture row `top`), resized to the pane: smooth
 * enlargements by ./enlarge (Catmull-Rom: sharper than Mitchell, and at large factors without
 * Lanczos' ringing around the hard edges of text and lines), the rest by libvips.
 */
function resizeDecoded(image: RawImage, pane: Pane, top = 0): Promise<RawImage> {
  return paneSampling(pane) === 'smooth'
    ? enlargeSmooth(image, regionRect(pane, top), pane.width, pane.height)
    : toRaw(resizePane(sharp(image.data, { raw: image.raw }), pane, top));
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
 * Only the band of rows the view needs is kept, and the decode stops below it, so a close-up near
 * the top of a photo costs a fifth of a full decode (the rows above the band are still decoded in
 * full: this libvips does not skip them, measured on 2026-12-01). A later view outside the cached band decodes the band that covers both, which then
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
  const rows = await decodedPictures.getOrCreate(key, async () => {
    const decoded = await toRaw(
      sharp(picture.bytes, decodeOptions)
        .extract({ left: 0, top: from, width: picture.width, height: to - from })
        .flatten({ background: '#ffffff' })
    );
    stageEnded('decoded');
    return { ...decoded, top: from };
  });
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
export function wholeAtPaneSize(picture: Picture, pane: Pane): Promise<RawImage> {
  const sampling = paneSampling(pane);
  return decodedPictures.getOrCreate(
    `${picture.sha256}/whole/${pane.width}x${pane.height}/${sampling}`,
    async () => {
      const decoded =
        sampling === 'smooth'
          ? // An enlargement: the picture is smaller than the pane, so decoding it whole is cheap.
            await resizeDecoded(await toRaw(fromFile(picture)), pane)
          : await toRaw(
              sharp(picture.bytes, decodeOptions)
                .resize(pane.width, pane.height, { fit: 'fill', kernel: kernelFor(pane) })
                .flatten({ background: '#ffffff' })
            );
      stageEnded('decoded');
      return { ...decoded, top: 0 };
    }
  );
}

/** A pane resized from decoded rows, or, without them (a picture too large to keep), from the file. */
async function resizeOne(
  picture: Picture,
  rows: DecodedRows | undefined,
  pane: Pane
): Promise<RawImage> {
  if (rows) {
    return resizeDecoded(rows, pane, rows.top);
  }
  return paneSampling(pane) === 'smooth'
    ? resizeDecoded(await toRaw(fromFile(picture).extract(regionRect(pane))), pane)
    : toRaw(resizePane(fromFile(picture), pane));
}

/**
 * Each pane of a view resized from one band of decoded rows covering all of them (a sheet's tiles
 * share it), or, for pictures too large to keep, each from the file.
 */
export function resizePanes(picture: Picture, panes: readonly Pane[]): Promise<RawImage[]> {
  const top = Math.min(...panes.map(pane => pane.region.y0));
  const bottom = Math.max(...panes.map(pane => pane.region.y1));
  const resizeFrom = (rows: DecodedRows | undefined): Promise<RawImage[]> =>
    Promise.all(panes.map(pane => resizeOne(picture, rows, pane)));
  // Cached rows start resizing at once, before the caller goes on to draw the overlay.
  const cached = cachedRows(picture, top, bottom);
  return cached ? resizeFrom(cached) : decodeRows(picture, top, bottom).then(resizeFrom);
}

/**
 * A sheet's tiles, one promise each (the caller places each tile as it comes), each kept by
 * fingerprint, region, size and sampling: the sheet drawn again with new marks, or another sheet
 * sharing tiles, resizes nothing, and its decode covers only the rows of tiles not kept. The rest
 * is resized from one band of decoded rows covering them, or, for pictures too large to keep,
 * each from the file.
 */
export function resizeTiles(picture: Picture, panes: readonly Pane[]): Array<Promise<RawImage>> {
  const keyOf = (pane: Pane): string => {
    const { x0, y0, x1, y1 } = pane.region;
    return `${picture.sha256}/tile/${x0},${y0},${x1},${y1}/${pane.width}x${pane.height}/${paneSampling(pane)}`;
  };
  const missing = panes.filter(pane => decodedPictures.get(keyOf(pane)) === undefined);
  let rows: Promise<DecodedRows | undefined> | undefined;
  const source = (): Promise<DecodedRows | undefined> => {
    if (!rows) {
      // A tile kept a moment ago may have been evicted since: then its own rows are wanted.
      const wanted = missing.length ? missing : panes;
      const top = Math.min(...wanted.map(pane => pane.region.y0));
      const bottom = Math.max(...wanted.map(pane => pane.region.y1));
      const cached = cachedRows(picture, top, bottom);
      rows = cached ? Promise.resolve(cached) : decodeRows(picture, top, bottom);
    }
    return rows;
  };
  return panes.map(pane =>
    decodedPictures.getOrCreate(keyOf(pane), async () => {
      const tile = await resizeOne(picture, await source(), pane);
      return { ...tile, top: 0 };
    })
  );
}

/** A view's source straight from the file, for pictures too large to keep decoded. */
function fromFile(picture: Picture): Sharp {
  return sharp(picture.bytes, decodeOptions).flatten({ background: '#ffffff' });
}

async function toRaw(image: Sharp): Promise<RawImage> {
  const out = await image.toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: out.data, raw: out.info };
}

/** What the cache of decoded pictures holds. */
export function decodedCacheStats(): ByteCacheStats {
  return decodedPictures.stats;
}

/** Forget every decoded picture. */
export function clearDecodedPictures(): void {
  decodedPictures.clear();
}
