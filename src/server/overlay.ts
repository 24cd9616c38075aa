/**
 * Overlays rasterized by resvg, as premultiplied RGBA layers for sharp to composite, with the
 * font options and glyph outlines they are drawn with.
 */
import { join } from 'node:path';

import { renderAsync, type ResvgRenderOptions } from '@resvg/resvg-js';
import type { OverlayOptions } from 'sharp';

import { FONT_FAMILY, type ViewGeometry } from '../tools/vision';
import { GlyphCache } from './glyphs';
import { fontDirectory } from './svg-fonts';

let overlayOptions: ResvgRenderOptions | undefined;

/** resvg options for overlays, resolved once: the bundled DejaVu Sans only, no system fonts. */
export function resvgOverlayOptions(): ResvgRenderOptions {
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

const NO_FONTS: ResvgRenderOptions = {
  font: { loadSystemFonts: false },
  fitTo: { mode: 'original' },
  logLevel: 'off'
};

let glyphCache: GlyphCache | undefined;

/** Labels drawn from cached outlines, pixel-identical to resvg's text and without its shaping. */
export function overlayGlyphs(): GlyphCache {
  glyphCache ??= new GlyphCache(resvgOverlayOptions());
  return glyphCache;
}

/** Rasterize a view's overlay (drawn by the pure core) as a layer for sharp to composite. */
export async function rasterizeOverlay(
  svg: string,
  geometry: ViewGeometry
): Promise<OverlayOptions> {
  // Labels reach resvg as outlines: with no text left, loading the font file for every render
  // would only cost time and allocations.
  const image = await renderAsync(svg, svg.includes('<text') ? resvgOverlayOptions() : NO_FONTS);
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
