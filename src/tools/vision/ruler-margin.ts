/**
 * The ruler margin's metrics: how long ticks are, how large their labels, and so how wide the
 * margin around every pane of a picture is. ./geometry places panes inside it, ./rulers draws
 * the ticks and labels in it, and ./draw sizes marks' numbers by the same digit width.
 */
import type { PictureSize } from './marks';

/** Tick label size, in view pixels. */
export const TICK_FONT_SIZE = 11;
/** Length of a tick line, from the picture's edge outwards into the margin. */
export const TICK_LENGTH = 7;
/** Space between a tick line's outer end and its label. */
export const TICK_LABEL_GAP = 3;
/** DejaVu Sans advances digits by 0.636 em and the minus by 0.838 em; 0.64 em bounds both well. */
export const DIGIT_EM = 0.64;

/**
 * The ruler margin around a pane, in view pixels: x ticks and labels above the picture, y ticks and
 * labels left of it, and room on the right and at the bottom for the half of a label centred on
 * the last tick.
 */
export interface RulerMargin {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

/** The width of a tick label of `digits` digits. */
export function tickLabelWidth(digits: number): number {
  return digits * DIGIT_EM * TICK_FONT_SIZE;
}

/**
 * The margin of every pane of a picture's views: wide enough for the longest coordinate the picture
 * has (its width or height), so all of its views, sheets included, have the same frame.
 */
export function rulerMargin(size: PictureSize): RulerMargin {
  const xLabel = tickLabelWidth(String(size.width).length);
  const yLabel = tickLabelWidth(String(size.height).length);
  return {
    left: Math.ceil(TICK_LENGTH + TICK_LABEL_GAP + yLabel + TICK_LABEL_GAP),
    top: TICK_LENGTH + TICK_LABEL_GAP + TICK_FONT_SIZE + TICK_LABEL_GAP,
    right: Math.ceil(xLabel / 2) + 1,
    bottom: Math.ceil(TICK_FONT_SIZE / 2) + 1
  };
}
