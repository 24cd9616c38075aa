/**
 * Smooth enlargements of vision views (close-ups and sheet tiles shown larger than the picture's
 * pixels): Catmull-Rom, separable, by @napi-rs/image's SIMD resizer (the fast_image_resize crate).
 *
 * libvips enlarges through its generic affine transform, a 4×4 stencil per output pixel: on the
 * benchmark's close-up (500 → 768 px) that took 25–35 ms of CPU, more than the decode of the rows
 * it enlarges, where this takes about 5 ms for the same kernel. It also placed the picture half a
 * view pixel right of and below where the view geometry (and so every mark) puts it: view pixel X
 * sampled the picture at X / s − ½ (pixel centres at whole numbers) instead of (X + ½) / s − ½, the
 * centre-to-centre mapping that libvips' reductions (maps) and pixel grids already follow. Here
 * enlarged panes follow it too (render-enlarge.test.ts finds the picture's edges where the
 * geometry puts them). At the region's edges the kernel's part outside it is left out and the
 * rest reweighted, as Pillow does, where libvips repeated the edge pixels: the outermost view
 * pixel or two of a pane may differ by a few levels, nothing moves.
 */
import { endianness } from 'node:os';

import { FastResizeFilter, ResizeFit, Transformer } from '@napi-rs/image';

import { netpbmHeader } from './png-encode';
import type { RawImage } from './raw-image';

/** A rectangle of an image's pixels, half-open. */
export interface PixelRect {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/**
 * `rect` of opaque 8-bit RGB pixels enlarged to `width`×`height` (each side stretched on its own),
 * as RGB. The source is read in place: only the rectangle's rows are copied, behind the PPM header
 * the resizer reads raw pixels through.
 */
export async function enlargeSmooth(
  source: RawImage,
  rect: PixelRect,
  width: number,
  height: number
): Promise<RawImage> {
  const { raw, data } = source;
  if (
    raw.channels !== 3 ||
    data.length !== raw.width * raw.height * 3 ||
    rect.left < 0 ||
    rect.top < 0 ||
    rect.width < 1 ||
    rect.height < 1 ||
    rect.left + rect.width > raw.width ||
    rect.top + rect.height > raw.height ||
    width < 1 ||
    height < 1
  ) {
    throw new Error(
      `cannot enlarge ${rect.width}×${rect.height} at ${rect.left},${rect.top} of a ${raw.width}×${raw.height}×${raw.channels} image to ${width}×${height}`
    );
  }
  const header = netpbmHeader('P6', rect.width, rect.height);
  const row = rect.width * 3;
  const ppm = Buffer.allocUnsafe(header.length + row * rect.height);
  header.copy(ppm);
  for (let y = 0; y < rect.height; y++) {
    const from = ((rect.top + y) * raw.width + rect.left) * 3;
    data.copy(ppm, header.length + y * row, from, from + row);
  }
  const rgba = await new Transformer(ppm)
    .fastResize({ width, height, filter: FastResizeFilter.CatmullRom, fit: ResizeFit.Fill })
    .rawPixels();
  if (rgba.length !== width * height * 4) {
    throw new Error(`the resizer returned ${rgba.length} bytes for ${width}×${height} RGBA`);
  }
  // The resizer works in RGBA, with an opaque alpha; the views are RGB.
  return { data: dropAlpha(rgba), raw: { width, height, channels: 3 } };
}

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * RGBA pixels as RGB (the alpha dropped), on this thread: four pixels read as four 32-bit words
 * and written as three. A byte at a time cost 4–9 ms of the main thread per close-up (768×768),
 * where every other stage of a repeated close-up waits for it; this takes about a third of that.
 * Bytes at a time where words cannot be read (a big-endian host, a source not aligned to 4 bytes)
 * and for the last pixels when their number is not a multiple of four.
 */
export function dropAlpha(rgba: Buffer): Buffer {
  const pixels = rgba.length >> 2;
  // Never a slice of Node's pool: its own memory, so its words are aligned (and every byte is
  // written below).
  const rgb = Buffer.allocUnsafeSlow(pixels * 3);
  let done = 0;
  if (LITTLE_ENDIAN && rgba.byteOffset % 4 === 0) {
    const source = new Uint32Array(rgba.buffer, rgba.byteOffset, pixels);
    const target = new Uint32Array(rgb.buffer, rgb.byteOffset, (pixels >> 2) * 3);
    done = pixels & ~3;
    for (let i = 0, j = 0; i < done; i += 4, j += 3) {
      // Little-endian words: 0xAABBGGRR.
      const p0 = source[i];
      const p1 = source[i + 1];
      const p2 = source[i + 2];
      const p3 = source[i + 3];
      target[j] = (p0 & 0xffffff) | (p1 << 24);
      target[j + 1] = ((p1 >>> 8) & 0xffff) | (p2 << 16);
      target[j + 2] = ((p2 >>> 16) & 0xff) | (p3 << 8);
    }
  }
  for (let i = done * 4, j = done * 3; j < rgb.length; i += 4, j += 3) {
    rgb[j] = rgba[i];
    rgb[j + 1] = rgba[i + 1];
    rgb[j + 2] = rgba[i + 2];
  }
  return rgb;
}
