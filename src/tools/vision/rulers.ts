/**
 * A pane's margin (pure strings): ruler ticks and their labels, and a sheet tile's label. Rulers
 * are drawn outside the picture, so they never cover what it shows; every label is an
 * original-picture coordinate. A tick label is centred on its tick; one that would not fit in its
 * margin is dropped, never nudged, because a nudged label would name a position it is not at.
 */
import { toViewX, toViewY, type Pane, type ViewGeometry } from './geometry';
import { TICK_FONT_SIZE, TICK_LABEL_GAP, TICK_LENGTH, tickLabelWidth } from './ruler-margin';
import { centredBaseline, haloText, svgNumber as n, type Box } from './overlay-svg';

/** The least distance between labelled ticks, in view pixels. */
export const MIN_TICK_SPACING = 64;

/** Rulers are light on the renderer's dark margin. */
export const RULER_COLOUR = '#e8e8e8';
/** Font size of a sheet tile's label (./sheet-parts sizes its strip by it). */
export const TILE_LABEL_FONT_SIZE = 12;

/** A tick label that was kept: centred at `(x, y)` in view pixels, `width` × `height` large. */
export interface TickLabel {
  readonly axis: 'x' | 'y';
  /** The original coordinate it names. */
  readonly value: number;
  readonly text: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** The smallest 1·10ⁿ, 2·10ⁿ or 5·10ⁿ (n ≥ 0) not below `min`. */
export function niceStep(min: number): number {
  let power = 1;
  for (;;) {
    for (const factor of [1, 2, 5]) {
      if (factor * power >= min) {
        return factor * power;
      }
    }
    power *= 10;
  }
}

function tickValues(lo: number, hi: number, step: number): number[] {
  const values: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    values.push(v);
  }
  return values;
}

/** Tick coordinates of a pane on each axis, spaced so labels do not crowd. */
export function paneTicks(pane: Pane): { xs: number[]; ys: number[] } {
  const { region } = pane;
  return {
    xs: tickValues(region.x0, region.x1, niceStep(MIN_TICK_SPACING / pane.sx)),
    ys: tickValues(region.y0, region.y1, niceStep(MIN_TICK_SPACING / pane.sy))
  };
}

/**
 * The tick labels of a pane that fit in its margin: x labels centred on their tick above the
 * picture, y labels centred on their tick left of it. Labels that would leave the margin (into
 * the picture, a neighbouring tile or past the view's edge) are dropped.
 */
export function tickLabels(pane: Pane): TickLabel[] {
  const { xs, ys } = paneTicks(pane);
  const { margin } = pane;
  const height = TICK_FONT_SIZE;
  const outerLeft = pane.left - margin.left;
  const outerRight = pane.left + pane.width + margin.right;
  const labels: TickLabel[] = [];
  for (const value of xs) {
    const text = String(value);
    const width = tickLabelWidth(text.length);
    const x = toViewX(pane, value);
    const y = pane.top - TICK_LENGTH - TICK_LABEL_GAP - height / 2;
    if (x - width / 2 >= outerLeft && x + width / 2 <= outerRight) {
      labels.push({ axis: 'x', value, text, x, y, width, height });
    }
  }
  // Below the x labels' row, so the corner holds no two labels on top of each other.
  const yTop = pane.top - TICK_LENGTH - TICK_LABEL_GAP;
  const yBottom = pane.top + pane.height + margin.bottom;
  for (const value of ys) {
    const text = String(value);
    const width = tickLabelWidth(text.length);
    const x = pane.left - TICK_LENGTH - TICK_LABEL_GAP - width / 2;
    const y = toViewY(pane, value);
    if (y - height / 2 >= yTop && y + height / 2 <= yBottom && x - width / 2 >= outerLeft) {
      labels.push({ axis: 'y', value, text, x, y, width, height });
    }
  }
  return labels;
}

/** Baseline of a sheet tile's label, in its strip above the tile's x ruler. */
function tileLabelBaseline(pane: Pane): number {
  return pane.top - pane.margin.top - 5;
}

/**
 * An element of a pane's margin: its SVG and the boxes its ink lies in (the ruler's one path
 * has a box per tick), so an overlay drawn in parts can put each box on a canvas of its own.
 */
export interface FrameElement {
  readonly svg: string;
  readonly boxes: readonly Box[];
}

/**
 * Tick lines from the picture's edge outwards, and their labels, all in the margin. A label's
 * box is an em per character wide (these are digits, each narrower) and a font size above and
 * below its centre.
 */
function tickElements(pane: Pane): FrameElement[] {
  const { xs, ys } = paneTicks(pane);
  const lines: string[] = [];
  const ticks: Box[] = [];
  // A 1-pixel stroke, antialiased: a pixel past it on each side.
  const reach = 1.5;
  for (const x of xs) {
    const at = toViewX(pane, x);
    lines.push(`M${n(at)} ${n(pane.top - TICK_LENGTH)}v${TICK_LENGTH}`);
    ticks.push({
      x0: at - reach,
      y0: pane.top - TICK_LENGTH - reach,
      x1: at + reach,
      y1: pane.top + reach
    });
  }
  for (const y of ys) {
    const at = toViewY(pane, y);
    lines.push(`M${n(pane.left - TICK_LENGTH)} ${n(at)}h${TICK_LENGTH}`);
    ticks.push({
      x0: pane.left - TICK_LENGTH - reach,
      y0: at - reach,
      x1: pane.left + reach,
      y1: at + reach
    });
  }
  // Plain text: on the flat margin a halo would only cost the rasterizer.
  const labels = tickLabels(pane).map(label => {
    const half = (label.text.length * TICK_FONT_SIZE) / 2 + 2;
    return {
      svg:
        `<text x="${n(label.x)}" y="${n(centredBaseline(label.y, TICK_FONT_SIZE))}" ` +
        `font-size="${TICK_FONT_SIZE}" text-anchor="middle" fill="${RULER_COLOUR}">${label.text}</text>`,
      boxes: [
        {
          x0: label.x - half,
          y0: label.y - TICK_FONT_SIZE - 2,
          x1: label.x + half,
          y1: label.y + TICK_FONT_SIZE + 2
        }
      ]
    };
  });
  return [
    {
      svg: `<path d="${lines.join('')}" stroke="${RULER_COLOUR}" stroke-width="1" fill="none"/>`,
      boxes: ticks
    },
    ...labels
  ];
}

/** What a pane draws in its margin, element by element: rulers, and a sheet tile's label. */
export function paneFrameElements(pane: Pane, geometry: ViewGeometry): FrameElement[] {
  const elements = tickElements(pane);
  if (geometry.kind === 'sheet' && pane.label !== undefined) {
    const centre = pane.left + pane.width / 2;
    const baseline = tileLabelBaseline(pane);
    // An em per character, its halo and antialiasing besides.
    const half = (pane.label.length * TILE_LABEL_FONT_SIZE) / 2 + 3;
    elements.push({
      svg: haloText(pane.label, centre, baseline, TILE_LABEL_FONT_SIZE, '#ffffff', 'middle'),
      boxes: [
        {
          x0: centre - half,
          y0: baseline - TILE_LABEL_FONT_SIZE - 3,
          x1: centre + half,
          y1: baseline + 6
        }
      ]
    });
  }
  return elements;
}

/** What a pane draws in its margin: rulers, and a sheet tile's label. */
export function paneFrame(pane: Pane, geometry: ViewGeometry): string {
  return paneFrameElements(pane, geometry)
    .map(element => element.svg)
    .join('');
}
