/**
 * What the vision overlays' SVG is made of, shared by the marks (./draw) and the rulers
 * (./rulers): the font, numbers as SVG writes them, escaped text, text with a halo, digits
 * centred on a line, and the boxes of view pixels an element's ink lies in.
 */

/** The font every overlay uses; the renderer loads it from the bundled DejaVu files. */
export const FONT_FAMILY = 'DejaVu Sans';

/** The dark outline under text and marks, so they read over any picture. */
export const HALO = '#000000';

/** A coordinate as the overlays write it: to two decimals at most. */
export function svgNumber(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, c => `&#${c.charCodeAt(0)};`);
}

/** Text with a dark halo under it, so it reads over any picture. */
export function haloText(
  text: string,
  x: number,
  baseline: number,
  size: number,
  fill: string,
  anchor: 'start' | 'middle' | 'end'
): string {
  return (
    `<text x="${svgNumber(x)}" y="${svgNumber(baseline)}" font-size="${size}" text-anchor="${anchor}" fill="${fill}" ` +
    `stroke="${HALO}" stroke-width="3" stroke-linejoin="round" paint-order="stroke">${escapeXml(text)}</text>`
  );
}

/** Baseline that centres digits (cap height ≈ 0.73 em) on `y`. */
export function centredBaseline(y: number, size: number): number {
  return y + size * 0.365;
}

/** A rectangle of view pixels, by its edges. */
export interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}
