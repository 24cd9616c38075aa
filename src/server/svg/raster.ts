/**
 * A checked figure drawn to PNG for the chat (`render-figure`): costly figures (filter effects)
 * cost the browser up to a second of its main thread per raster, so the figure server draws them
 * once, in its worker pool, and the page shows the PNG. Synchronous; run in a worker (`./svg`).
 */
import { Resvg } from '@resvg/resvg-js';

import type { SvgCheck } from '../../tools/svg';
import { checkSvg } from './check';
import { resvgOptions } from './fonts';

/** What a worker answers: the figure's check, and its PNG when it was asked for and passed. */
export interface SvgWorkerAnswer {
  readonly check: SvgCheck;
  readonly png?: Uint8Array;
}

/**
 * Most pixels of one `render-figure` PNG: the chat's largest figure box (1280×480 CSS px) at a
 * pixel ratio of 3 is 5.5 M px; a request past it is drawn smaller, never larger.
 */
export const FIGURE_RASTER_MAX_PIXELS = 6_000_000;

/** What to draw: CSS width (at most the figure's own) and device pixel ratio. */
export interface FigureRasterSize {
  readonly width: number;
  readonly ratio: number;
}

/**
 * Check `svg` (the same policy and resvg parse as `check-svg`) and, only if it passed, draw it at
 * `size`, within {@link FIGURE_RASTER_MAX_PIXELS}. Never throws for any figure.
 */
export function checkAndRaster(
  svg: string,
  size: FigureRasterSize,
  fontDirectory?: string
): SvgWorkerAnswer {
  const check = checkSvg(svg, fontDirectory);
  if (!check.ok) {
    return { check };
  }
  const { width, height } = check.value;
  const wanted = (Math.min(size.width, width) / width) * size.ratio;
  const scale = Math.min(wanted, Math.sqrt(FIGURE_RASTER_MAX_PIXELS / (width * height)));
  const rendered = new Resvg(svg, {
    ...resvgOptions(fontDirectory),
    fitTo: { mode: 'zoom', value: scale }
  }).render();
  return { check, png: rendered.asPng() };
}
