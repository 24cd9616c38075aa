/**
 * The PNG encode of vision views. sharp decodes, resizes and composites; the PNG is written by
 * @napi-rs/image (the Rust `png` crate), whose fast compression is fdeflate: a deflate made for
 * filtered image rows. On the views of bench/vision.mjs it took about an eighth of the CPU time of
 * libpng + zlib-ng at level 2 inside libvips, and its PNG was about a tenth smaller than Pillow's at
 * that level (bench/png-encoders.mjs measures every candidate; the pixels decode back the same).
 */
import { CompressionType, FilterType, Transformer } from '@napi-rs/image';

/** Raw 8-bit pixels: a composited view, as render.ts holds it, or a kernel's array. */
export interface RgbPixels {
  readonly data: Buffer;
  readonly raw: { readonly width: number; readonly height: number; readonly channels: number };
}

/** Pixels the encoder cannot take: 8-bit grey, RGB or RGBA only. */
export class PngEncodeError extends Error {
  override name = 'PngEncodeError';
}

/**
 * The options of every PNG written here. Adaptive filters give each row the filter that suits it,
 * as libpng's adaptive filtering did, for little more time than one fixed filter (the benchmark
 * measures both): a view is a photograph, a plot or both, with margins and marks over it.
 */
export const VIEW_PNG = {
  compressionType: CompressionType.Fast,
  filterType: FilterType.Adaptive
} as const;

/** The binary PPM/PGM header the Transformer reads raw grey or RGB pixels behind. */
const NETPBM_MAGIC: Partial<Record<number, string>> = { 1: 'P5', 3: 'P6' };

/** The binary Netpbm header (`P5` grey, `P6` RGB) raw pixels are read behind. */
export function netpbmHeader(magic: string, width: number, height: number): Buffer {
  return Buffer.from(`${magic}\n${width} ${height}\n255\n`, 'latin1');
}

/**
 * Pixels allocated by {@link allocatePixels}, with the Netpbm file (header, then these very pixels)
 * whose tail they are.
 */
const withHeader = new WeakMap<Buffer, Buffer>();

/**
 * Zero-filled room for `width`×`height` grey or RGB pixels that {@link encodePng} reads in place:
 * they are allocated behind their Netpbm header, so the encode copies nothing (a view's canvas is
 * 2 MB, and copying it into a new buffer cost a pass over it and a large allocation per view).
 */
export function allocatePixels(width: number, height: number, channels: 1 | 3): Buffer {
  const magic = NETPBM_MAGIC[channels];
  if (magic === undefined || !(width >= 1 && height >= 1)) {
    throw new PngEncodeError(`cannot allocate ${width}×${height}×${channels} pixels`);
  }
  const header = netpbmHeader(magic, width, height);
  const file = Buffer.alloc(header.length + width * height * channels);
  header.copy(file);
  const pixels = file.subarray(header.length);
  withHeader.set(pixels, file);
  return pixels;
}

/**
 * Encode 8-bit grey, RGB or RGBA pixels as a PNG of the same channels, on libuv's pool like sharp.
 * The Transformer reads raw grey or RGB only as a binary PGM/PPM (its `fromRgbaPixels` would add
 * an alpha channel every view would pay for in bytes), so those go in behind a Netpbm header: in
 * place when {@link allocatePixels} made room for it, else a copy; no conversion either way. Only
 * pixels this server composited, or a kernel's array already checked against its layout, reach
 * its decoder, never a user's or the model's encoded bytes: pictures are decoded by sharp, within
 * its limits.
 */
export async function encodePng(pixels: RgbPixels): Promise<Buffer> {
  const { width, height, channels } = pixels.raw;
  const magic = NETPBM_MAGIC[channels];
  if (
    (magic === undefined && channels !== 4) ||
    pixels.data.length !== width * height * channels ||
    width < 1 ||
    height < 1
  ) {
    throw new PngEncodeError(
      `cannot write a PNG of ${width}×${height}×${channels} pixels in ${pixels.data.length} bytes: only 8-bit grey, RGB or RGBA pixels are encoded`
    );
  }
  if (magic === undefined) {
    return Transformer.fromRgbaPixels(pixels.data, width, height).png(VIEW_PNG);
  }
  const header = netpbmHeader(magic, width, height);
  const file = withHeader.get(pixels.data);
  // The header in front must still say this size and channels (the pixels were allocated for them).
  const inPlace = file !== undefined && file.subarray(0, header.length).equals(header);
  return new Transformer(inPlace ? file : Buffer.concat([header, pixels.data])).png(VIEW_PNG);
}
