/**
 * A photo-like picture for rendering tests (as bench/bench-picture.mjs draws for the benchmarks):
 * gradients, a fine grid and a high-frequency texture, so every scale has structure.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import sharp from 'sharp';

/** The RGB pixels of a `width`×`height` photo-like picture with a grid line every `grid` pixels. */
export function photoPixels(width: number, height: number, grid: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const line = x % grid < 2 || y % grid < 2 ? 60 : 0;
      pixels[i] = ((x * 255) / width + line) & 255;
      pixels[i + 1] = ((y * 255) / height + line) & 255;
      pixels[i + 2] = (((x ^ y) & 255) >> 1) + 64;
    }
  }
  return pixels;
}

/** Write that picture as a quality-90 JPEG at `folder/name`. */
export async function writePhotoJpeg(
  folder: string,
  name: string,
  width: number,
  height: number,
  grid: number
): Promise<void> {
  const raw = { raw: { width, height, channels: 3 as const } };
  const jpeg = await sharp(photoPixels(width, height, grid), raw)
    .jpeg({ quality: 90 })
    .toBuffer();
  writeFileSync(join(folder, name), jpeg);
}
