/**
 * Overlays composited in JavaScript, pixel by pixel, for the tests that compare a rendered view (or
 * an overlay drawn in parts) with the whole overlay, clip paths and all, over known pixels.
 */
import { overlayGlyphs, rasterizeOverlay } from '../../server/render/overlay';
import {
  drawGeometry,
  type ViewGeometry,
  type ViewRect,
  type VisionRecord
} from '../../tools/vision';

// Jest runs tests in a vm context, where every lookup of a global such as `Math` in a loop over
// a view's pixels costs far more than the arithmetic.
const { abs, floor, max } = Math;

/** Premultiplied RGBA `layer`, lying at `drawn`, over RGB `base` (view-sized), inside `shows`. */
export function over(
  base: Buffer,
  viewWidth: number,
  layer: Buffer,
  drawn: ViewRect,
  shows: ViewRect = drawn
): void {
  for (let y = shows.top; y < shows.top + shows.height; y++) {
    for (let x = shows.left; x < shows.left + shows.width; x++) {
      const i = ((y - drawn.top) * drawn.width + x - drawn.left) * 4;
      const alpha = layer[i + 3];
      if (alpha === 0) {
        continue;
      }
      const j = (y * viewWidth + x) * 3;
      for (let c = 0; c < 3; c++) {
        base[j + c] = layer[i + c] + floor((base[j + c] * (255 - alpha) + 127) / 255);
      }
    }
  }
}

/** The whole overlay of a view (clip paths and all) over `base`, as the renderer drew sheets. */
export async function wholeOverlayOver(
  base: Buffer,
  geometry: ViewGeometry,
  record: VisionRecord
): Promise<Buffer> {
  const svg = overlayGlyphs().outlineText(drawGeometry(geometry, record));
  const layer = await rasterizeOverlay(svg, geometry);
  const out = Buffer.from(base);
  const view = { left: 0, top: 0, width: geometry.width, height: geometry.height };
  over(out, geometry.width, layer.input as Buffer, view);
  return out;
}

/** Pixels that differ, and by how much at most. */
export function difference(a: Buffer, b: Buffer): { pixels: number; most: number } {
  let pixels = 0;
  let most = 0;
  for (let i = 0; i < a.length; i += 3) {
    const d = max(abs(a[i] - b[i]), abs(a[i + 1] - b[i + 1]), abs(a[i + 2] - b[i + 2]));
    if (d > 0) {
      pixels++;
      most = max(most, d);
    }
  }
  return { pixels, most };
}
