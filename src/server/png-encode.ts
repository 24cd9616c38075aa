/**
 * The PNG encode of vision views. sharp decodes, resizes and composites; the PNG is written by
 * @napi-rs/image (the Rust `png` crate), whose fast compression is fdeflate: a deflate made for
 * filtered image rows. On the views of bench/vision.mjs it took about an eighth of the CPU time of
 * libpng + zlib-ng at level 2 inside libvips, and its PNG was about a tenth smaller than Pillow's at
 * that level (bench/png-encoders.mjs measures every candidate; the pixels decode back the same).
 */
import { CompressionType, FilterType, Transformer } from '@napi-rs/image';

/** Composited pixels, as render.ts holds them. */
export interface RgbPixels {
  readonly data: Buffer;
  readonly raw: { readonly width: number; readonly height: number; readonly channels: number };
}

/** A canvas the encoder cannot take: only 8-bit RGB, which every view is, is written. */
export class PngEncodeError extends Error {
  override name = 'PngEncodeError';
}

/**
 * The options of every view's PNG. Adaptive filters give each row the filter that suits it, as
 * libpng's adaptive filtering did, for little more time than one fixed filter (the benchmark
 * measures both): a view is a photograph, a plot or both, with margins and marks over it.
 */
export const VIEW_PNG = {
  compressionType: CompressionType.Fast,
  filterType: FilterType.Adaptive
} as const;

/**
 * Encode 8-bit RGB pixels as an RGB PNG, on libuv's pool like sharp. The Transformer reads raw RGB
 * only as a binary PPM (its `fromRgbaPixels` would write an alpha channel every view would pay for
 * in bytes), so the pixels go in behind a PPM header: a copy, no conversion. Only pixels this
 * server composited reach its decoder, never a user's or the model's bytes: pictures are decoded
 * by sharp, within its limits.
 */
export async function encodePng(pixels: RgbPixels): Promise<Buffer> {
  const { width, height, channels } = pixels.raw;
  if (channels !== 3 || pixels.data.length !== width * height * 3 || width < 1 || height < 1) {
    throw new PngEncodeError(
      `cannot write a PNG of ${width}×${height}×${channels} pixels in ${pixels.data.length} bytes: only 8-bit RGB views are encoded`
    );
  }
  const header = Buffer.from(`P6\n${width} ${height}\n255\n`, 'latin1');
  return new Transformer(Buffer.concat([header, pixels.data])).png(VIEW_PNG);
}
