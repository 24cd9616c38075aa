/**
 * Resizing a box by one of its eight handles (corners and edges), with the mouse or the keyboard.
 * The result is a box address the tools' `applyUpdateArgs` takes, so a resized box is the box
 * `vision_update` would make: integer picture pixels, inside the picture, at least 1 pixel wide.
 */
import type { BoxMark } from '../tools/vision';
import { clamp, svgElement } from './mark-shapes';

/** A box handle: which edges it moves (n = top, s = bottom, w = left, e = right). */
export type Handle = 'nw' | 'n' | 'ne' | 'e' | 'se' | 's' | 'sw' | 'w';

export const HANDLES: readonly Handle[] = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w'];

/** Whether a string names a handle (read from a `data-handle` attribute). */
export function isHandle(value: string | null | undefined): value is Handle {
  return HANDLES.some(handle => handle === value);
}

/** The address of `box` with the edges `handle` names moved by (dx, dy) picture pixels. */
export function resizedAddress(
  box: BoxMark,
  handle: Handle,
  dx: number,
  dy: number,
  width: number,
  height: number
): string {
  let { x0, y0, x1, y1 } = box;
  if (handle.includes('w')) {
    x0 = clamp(x0 + dx, 0, x1 - 1);
  }
  if (handle.includes('e')) {
    x1 = clamp(x1 + dx, x0 + 1, width);
  }
  if (handle.includes('n')) {
    y0 = clamp(y0 + dy, 0, y1 - 1);
  }
  if (handle.includes('s')) {
    y1 = clamp(y1 + dy, y0 + 1, height);
  }
  return `${x0},${y0},${x1},${y1}`;
}

/** The cursor over a handle. */
const CURSORS: Record<Handle, string> = {
  nw: 'nwse-resize',
  se: 'nwse-resize',
  ne: 'nesw-resize',
  sw: 'nesw-resize',
  n: 'ns-resize',
  s: 'ns-resize',
  e: 'ew-resize',
  w: 'ew-resize'
};

/**
 * The selected box's handles: squares of 9 screen pixels (`unit` is picture pixels per screen
 * pixel) on its corners and edge middles, each naming its handle in `data-handle`.
 */
export function handleElements(box: BoxMark, unit: number): SVGRectElement[] {
  const size = 9 * unit;
  const xs = { w: box.x0, m: (box.x0 + box.x1) / 2, e: box.x1 };
  const ys = { n: box.y0, m: (box.y0 + box.y1) / 2, s: box.y1 };
  return HANDLES.map(handle => {
    const x = handle.includes('w') ? xs.w : handle.includes('e') ? xs.e : xs.m;
    const y = handle.includes('n') ? ys.n : handle.includes('s') ? ys.s : ys.m;
    return svgElement('rect', {
      class: 'jp-FigureChat-visionHandle',
      'data-handle': handle,
      x: x - size / 2,
      y: y - size / 2,
      width: size,
      height: size,
      'stroke-width': unit,
      style: `cursor: ${CURSORS[handle]}`
    });
  });
}
