/**
 * The intrinsic size of a figure from its root's `width`, `height` and `viewBox`, the way SVG
 * renderers derive it, checked against the named limits before anything rasterizes it.
 */
import { SVG_MAX_AREA, SVG_MAX_SIDE } from './limits';
import { refuse } from './result';

/** CSS pixels per absolute unit. */
const UNIT_PX: Readonly<Record<string, number>> = {
  '': 1,
  px: 1,
  in: 96,
  cm: 96 / 2.54,
  mm: 96 / 25.4,
  q: 96 / 101.6,
  pt: 96 / 72,
  pc: 16
};

const NUMBER = '[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?';
const LENGTH = new RegExp(`^(${NUMBER})([a-zA-Z%]*)$`);

/**
 * A root `width`/`height` in CSS pixels; `undefined` when absent or a percentage (then the
 * `viewBox` decides, as in renderers).
 */
function parseLength(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'auto') {
    return undefined;
  }
  const match = LENGTH.exec(raw.trim());
  if (!match) {
    refuse(
      'dimensions',
      `SVG ${name}="${raw.slice(0, 30)}" is not a length; give it in px, e.g. ${name}="640"`
    );
  }
  const unit = match[2].toLowerCase();
  if (unit === '%') {
    return undefined;
  }
  const scale = UNIT_PX[unit];
  if (scale === undefined) {
    refuse(
      'dimensions',
      `SVG ${name} uses the unit "${match[2]}"; give it in px, e.g. ${name}="640"`
    );
  }
  return Number(match[1]) * scale;
}

/** A viewBox's width and height, or `undefined` when absent. */
function parseViewBox(raw: string | undefined): { width: number; height: number } | undefined {
  if (raw === undefined || raw.trim() === '') {
    return undefined;
  }
  const parts = raw.trim().split(/[\s,]+/);
  const numbers = parts.map(Number);
  if (numbers.length !== 4 || numbers.some(n => !Number.isFinite(n))) {
    refuse(
      'dimensions',
      `SVG viewBox="${raw.slice(0, 40)}" is not four numbers; write viewBox="0 0 W H"`
    );
  }
  if (numbers[2] <= 0 || numbers[3] <= 0) {
    refuse('dimensions', 'SVG viewBox has a zero or negative width or height; make both positive');
  }
  return { width: numbers[2], height: numbers[3] };
}

/** The intrinsic size of the figure, refused when missing, not positive or beyond the limits. */
export function intrinsicSize(
  widthAttribute: string | undefined,
  heightAttribute: string | undefined,
  viewBoxAttribute: string | undefined
): { width: number; height: number } {
  let width = parseLength('width', widthAttribute);
  let height = parseLength('height', heightAttribute);
  const viewBox = parseViewBox(viewBoxAttribute);
  if (width === undefined && height === undefined) {
    if (!viewBox) {
      refuse(
        'dimensions',
        'SVG has no intrinsic size; add width and height (or a viewBox) to the root <svg>'
      );
    }
    width = viewBox.width;
    height = viewBox.height;
  } else if (width === undefined || height === undefined) {
    if (!viewBox) {
      refuse('dimensions', 'SVG gives only one of width and height; add the other (or a viewBox)');
    }
    // One side given: the other follows the viewBox's aspect ratio.
    width ??= (height ?? 0) * (viewBox.width / viewBox.height);
    height ??= width * (viewBox.height / viewBox.width);
  }
  if (!(width > 0 && height > 0) || !Number.isFinite(width) || !Number.isFinite(height)) {
    refuse('dimensions', 'SVG width and height must be positive; set both to at least 1 px');
  }
  if (width > SVG_MAX_SIDE || height > SVG_MAX_SIDE || width * height > SVG_MAX_AREA) {
    refuse(
      'dimensions',
      `SVG is ${Math.round(width)}×${Math.round(height)} px; keep each side ≤ ${SVG_MAX_SIDE} px and the area ≤ ${SVG_MAX_AREA / 1e6} M px (scale width/height down and keep the viewBox)`
    );
  }
  return { width, height };
}
