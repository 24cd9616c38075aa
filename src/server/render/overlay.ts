/**
 * Overlays rasterized by resvg, as premultiplied RGBA layers for sharp to composite, with the
 * font options and glyph outlines they are drawn with.
 */
import { join } from 'node:path';

import { renderAsync, type ResvgRenderOptions } from '@resvg/resvg-js';
import type { OverlayOptions } from 'sharp';

import {
  FONT_FAMILY,
  overlayPartSvg,
  type OverlayCanvas,
  type OverlayPart,
  type ViewGeometry
} from '../../tools/vision';
import { ByteCache, type ByteCacheStats } from './byte-cache';
import { GlyphCache } from './glyphs';
import { fontDirectory } from '../svg/fonts';

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

/** Bytes of rasterized overlay layers kept: a sheet's are about 3 MB, a map's 0.4 MB. */
export const OVERLAY_LAYER_BYTES = 8 * 1024 * 1024;

/** Forget the outlined labels and rasterized layers kept (the glyphs stay): cold views. */
export function forgetOverlays(): void {
  glyphCache?.forgetLabels();
  rasterizedLayers.clear();
}

/** resvg's options for an overlay: the font only when text is left after outlining. */
function optionsFor(svg: string): ResvgRenderOptions {
  // Labels reach resvg as outlines: with no text left, loading the font file for every render
  // would only cost time and allocations.
  return svg.includes('<text') ? resvgOverlayOptions() : NO_FONTS;
}

/**
 * An overlay SVG rasterized as a premultiplied RGBA layer of `width`×`height` (what the SVG says
 * its size is; anything else is a bug in the drawing, not the picture's fault).
 */
function rasterize(svg: string, width: number, height: number): Promise<OverlayOptions> {
  return rasterizedLayers.getOrCreate(svg, () => rasterizeNew(svg, width, height));
}

/**
 * Overlay layers kept by their SVG (a canvas' whole document: its content, place and size), for
 * the view drawn again with a mark added or moved: the canvases it did not touch (the ruler
 * labels, the other marks, a sheet's other tiles) are not rasterized again. Layers are only read
 * (composited over a view's own canvas), never written.
 */
const rasterizedLayers = new ByteCache<OverlayOptions>(OVERLAY_LAYER_BYTES, layer =>
  Buffer.isBuffer(layer.input) ? layer.input.length : 0
);

/** What the cache of rasterized overlay layers holds, for the tests of its budget. */
export function overlayLayerStats(): ByteCacheStats {
  return rasterizedLayers.stats;
}

async function rasterizeNew(svg: string, width: number, height: number): Promise<OverlayOptions> {
  // As bytes: the call itself holds this thread for a time that grows with the SVG, before the
  // rasterization goes to libuv's pool, and a Buffer takes about two thirds of a string's (a
  // sheet's 27 canvases, bench/vision.mjs' view: median 4.4 against 6.4 ms per sheet).
  const image = await renderAsync(Buffer.from(svg), optionsFor(svg));
  if (image.width !== width || image.height !== height) {
    throw new Error(`overlay rendered at ${image.width}×${image.height}, not ${width}×${height}`);
  }
  // resvg's pixels are premultiplied RGBA; saying so spares sharp a conversion and keeps edges exact.
  return { input: image.pixels, raw: { width, height, channels: 4, premultiplied: true } };
}

/** Rasterize a view's overlay (drawn by the pure core) as a layer for sharp to composite. */
export function rasterizeOverlay(svg: string, geometry: ViewGeometry): Promise<OverlayOptions> {
  return rasterize(svg, geometry.width, geometry.height);
}

/** One canvas of an overlay part, rasterized: a layer of its `drawn` rectangle. */
export interface OverlayLayer {
  readonly canvas: OverlayCanvas;
  readonly layer: OverlayOptions;
}

/**
 * Rasterize an overlay drawn in parts (a sheet's, see `sheetOverlayParts`), each canvas on its
 * own: resvg's cost grows with the canvas' area, and the canvases rasterize side by side on
 * libuv's pool (beside the picture's decode). The layers come back in the parts' order.
 */
export function rasterizeOverlayParts(parts: readonly OverlayPart[]): Promise<OverlayLayer[]> {
  const glyphs = overlayGlyphs();
  const layers: Array<Promise<OverlayLayer>> = [];
  for (const part of parts) {
    const content = glyphs.outlineText(part.content);
    for (const canvas of part.canvases) {
      const { drawn } = canvas;
      layers.push(
        rasterize(overlayPartSvg(content, drawn), drawn.width, drawn.height).then(layer => ({
          canvas,
          layer
        }))
      );
    }
  }
  return Promise.all(layers);
}
