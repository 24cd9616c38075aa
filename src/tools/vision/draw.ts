/**
 * Views as SVG overlays (pure strings): tick labels, marks, mark numbers, crosshairs, tile labels.
 * The picture itself is composited underneath by the renderer, which uses the same
 * {@link viewGeometry}, on a canvas with a ruler margin around each pane.
 *
 * Rulers (tick lines and labels) are drawn in that margin, outside the picture, so they never
 * cover what the picture shows. Every label is an original-picture coordinate or a mark number. A
 * tick label is centred on its tick; one that would not fit in its margin is dropped, never
 * nudged, because a nudged label would name a position it is not at.
 */
import { PALETTE_HEX } from './address';
import {
  DIGIT_EM,
  TICK_FONT_SIZE,
  TICK_LABEL_GAP,
  TICK_LENGTH,
  tickLabelWidth,
  paneSampling,
  toViewX,
  toViewY,
  viewGeometry,
  type Pane,
  type ViewGeometry,
  type ViewSpec
} from './geometry';
import { markBounds, type Mark, type PictureSize, type VisionRecord } from './record';

/** The font every overlay uses; the renderer loads it from the bundled DejaVu files. */
export const FONT_FAMILY = 'DejaVu Sans';

/** The least distance between labelled ticks, in view pixels. */
export const MIN_TICK_SPACING = 64;

/** Rulers are light on the renderer's dark margin. */
export const RULER_COLOUR = '#e8e8e8';

const MARK_FONT_SIZE = 13;
/** Font size of a sheet tile's label (./sheet-parts sizes its strip by it). */
export const TILE_LABEL_FONT_SIZE = 12;
const HALO = '#000000';

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

function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, c => `&#${c.charCodeAt(0)};`);
}

/** Text with a dark halo under it, so it reads over any picture. */
function haloText(
  text: string,
  x: number,
  baseline: number,
  size: number,
  fill: string,
  anchor: 'start' | 'middle' | 'end'
): string {
  return (
    `<text x="${n(x)}" y="${n(baseline)}" font-size="${size}" text-anchor="${anchor}" fill="${fill}" ` +
    `stroke="${HALO}" stroke-width="3" stroke-linejoin="round" paint-order="stroke">${escapeXml(text)}</text>`
  );
}

/** Baseline that centres digits (cap height ≈ 0.73 em) on `y`. */
function centredBaseline(y: number, size: number): number {
  return y + size * 0.365;
}

/** A rectangle of view pixels, by its edges. */
export interface Box {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/**
 * One element of a pane's content with where its ink may reach (stroke and antialiasing
 * included), and whether it has curves: the rasterizer cuts a path at its canvas' edge, which
 * leaves straight, axis-aligned strokes as they were but flattens a cut curve differently.
 */
export interface Drawn {
  readonly svg: string;
  readonly box: Box;
  readonly curved: boolean;
}

function drawMark(pane: Pane, mark: Mark, covered: boolean): Drawn[] {
  const colour = PALETTE_HEX[mark.colour];
  const fill = covered ? colour : 'none';
  let shape: Drawn;
  let numberX: number;
  let numberY: number;
  // The halo's stroke reaches 2.5 past the shape's outline; 2 more for antialiasing and rounding.
  const reach = 4.5;
  if (mark.kind === 'point') {
    const cx = toViewX(pane, mark.x);
    const cy = toViewY(pane, mark.y);
    const rx = Math.max(2, mark.r * pane.sx);
    const ry = Math.max(2, mark.r * pane.sy);
    const geometry = `cx="${n(cx)}" cy="${n(cy)}" rx="${n(rx)}" ry="${n(ry)}"`;
    shape = {
      svg:
        `<ellipse ${geometry} fill="none" stroke="${HALO}" stroke-width="5" stroke-opacity="0.6"/>` +
        `<ellipse ${geometry} fill="${fill}" stroke="${colour}" stroke-width="2.5"/>`,
      box: { x0: cx - rx - reach, y0: cy - ry - reach, x1: cx + rx + reach, y1: cy + ry + reach },
      curved: true
    };
    numberX = cx + rx * 0.71 + 2;
    numberY = cy - ry * 0.71 - 2;
  } else {
    const x = toViewX(pane, mark.x0);
    const y = toViewY(pane, mark.y0);
    const w = (mark.x1 - mark.x0) * pane.sx;
    const h = (mark.y1 - mark.y0) * pane.sy;
    const geometry = `x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}"`;
    shape = {
      svg:
        `<rect ${geometry} fill="none" stroke="${HALO}" stroke-width="5" stroke-opacity="0.6"/>` +
        `<rect ${geometry} fill="${fill}" stroke="${colour}" stroke-width="2.5"/>`,
      box: { x0: x - reach, y0: y - reach, x1: x + w + reach, y1: y + h + reach },
      curved: false
    };
    numberX = x + 1;
    numberY = y - 4;
  }
  // A mark number names the mark, not a position, so it may move inside the pane to stay legible.
  const width = String(mark.id).length * DIGIT_EM * MARK_FONT_SIZE;
  numberX = Math.min(Math.max(numberX, pane.left + 1), pane.left + pane.width - width - 1);
  numberY = Math.min(Math.max(numberY, pane.top + MARK_FONT_SIZE), pane.top + pane.height - 2);
  const number: Drawn = {
    svg: haloText(String(mark.id), numberX, numberY, MARK_FONT_SIZE, colour, 'start'),
    // Digits stand on the baseline, below the font size; the halo is 1.5 wide.
    box: {
      x0: numberX - 3,
      y0: numberY - MARK_FONT_SIZE - 3,
      x1: numberX + width + 3,
      y1: numberY + 3
    },
    curved: true
  };
  return [shape, number];
}

function drawCrosshair(pane: Pane): Drawn[] {
  if (!pane.focus) {
    return [];
  }
  const cx = toViewX(pane, pane.focus.x);
  const cy = toViewY(pane, pane.focus.y);
  const x = n(cx);
  const y = n(cy);
  // A gap in the middle leaves the asked pixel itself visible.
  const d = `M${x} ${y}m-18 0h12m12 0h12M${x} ${y}m0 -18v12m0 12v12`;
  return [
    {
      svg:
        `<path d="${d}" stroke="${HALO}" stroke-width="4" fill="none"/>` +
        `<path d="${d}" stroke="#ffffff" stroke-width="1.5" fill="none"/>`,
      box: { x0: cx - 22, y0: cy - 22, x1: cx + 22, y1: cy + 22 },
      curved: false
    }
  ];
}

/**
 * The marks a pane shows. A mark outside the pane is left out whole: its number, kept inside the
 * pane, would point at something that is not there.
 */
function shownMarks(pane: Pane, record: VisionRecord): Mark[] {
  const { region } = pane;
  return record.marks.filter(mark => {
    const b = markBounds(mark);
    return b.x1 >= region.x0 && b.x0 <= region.x1 && b.y1 >= region.y0 && b.y0 <= region.y1;
  });
}

/** What a pane shows over its picture, element by element: its marks and crosshair. */
export function paneElements(pane: Pane, record: VisionRecord, geometry: ViewGeometry): Drawn[] {
  return [
    ...shownMarks(pane, record).flatMap(mark =>
      drawMark(pane, mark, geometry.cover.includes(mark.colour))
    ),
    ...drawCrosshair(pane)
  ];
}

/** What a pane shows over its picture, drawn in view coordinates. */
function paneContent(pane: Pane, record: VisionRecord, geometry: ViewGeometry): string {
  return paneElements(pane, record, geometry)
    .map(element => element.svg)
    .join('');
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

function drawPane(pane: Pane, index: number, record: VisionRecord, geometry: ViewGeometry): string {
  const content = paneContent(pane, record, geometry);
  // A single pane's marks may reach into its margin (the view's edge clips them), which keeps a
  // mark at the picture's edge whole and spares the rasterizer a clip layer as large as the view.
  // Sheet tiles are clipped, so a mark never spills onto a neighbour's rulers.
  if (geometry.kind !== 'sheet') {
    return content + paneFrame(pane, geometry);
  }
  const clip = `pane${index}`;
  return (
    `<clipPath id="${clip}"><rect x="${pane.left}" y="${pane.top}" width="${pane.width}" height="${pane.height}"/></clipPath>` +
    `<g clip-path="url(#${clip})">${content}</g>` +
    paneFrame(pane, geometry)
  );
}

/**
 * The overlay of a view whose geometry is already known, as an SVG document of the view's size, or
 * of `size` (a view drawn smaller for display: the same drawing, scaled).
 */
export function drawGeometry(
  geometry: ViewGeometry,
  record: VisionRecord,
  size: { readonly width: number; readonly height: number } = geometry
): string {
  const panes = geometry.panes
    .map((pane, index) => drawPane(pane, index, record, geometry))
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" ` +
    `viewBox="0 0 ${geometry.width} ${geometry.height}" font-family="${FONT_FAMILY}">${panes}</svg>`
  );
}

/** A view's overlay as an SVG string, with the geometry it was drawn for. */
export function drawView(
  spec: ViewSpec,
  record: VisionRecord,
  size: PictureSize
): { svg: string; geometry: ViewGeometry } {
  const geometry = viewGeometry(spec, record, size);
  return { svg: drawGeometry(geometry, record), geometry };
}

function zoomFactor(zoom: number): string {
  return String(Math.round(zoom * 10) / 10);
}

/**
 * How a view's panes were enlarged, as the caption says it (`; enlarged 4.2× smoothly`, `;
 * enlarged 16× as a pixel grid`), or nothing for views shown at or below the picture's size.
 */
export function describeSampling(geometry: ViewGeometry): string {
  const enlarged = geometry.panes.filter(pane => paneSampling(pane) !== 'reduced');
  if (!enlarged.length) {
    return '';
  }
  const zooms = enlarged.map(pane => Math.min(pane.sx, pane.sy));
  const low = Math.min(...zooms);
  const high = Math.max(...zooms);
  const zoom =
    zoomFactor(low) === zoomFactor(high)
      ? zoomFactor(low)
      : `${zoomFactor(low)}–${zoomFactor(high)}`;
  const kinds = new Set(enlarged.map(paneSampling));
  const how = [
    kinds.has('smooth') ? 'smoothly' : '',
    kinds.has('pixel-grid') ? 'as a pixel grid' : ''
  ]
    .filter(Boolean)
    .join(' and ');
  return `; enlarged ${zoom}× ${how}`;
}

/**
 * One line saying what a view shows, for captions and the model. The view's pixels are the
 * picture's, framed by rulers in a margin whose labels are original coordinates.
 */
export function describeView(
  geometry: ViewGeometry,
  record: VisionRecord,
  size: PictureSize
): string {
  const shown = `${geometry.width}×${geometry.height}`;
  const pane = geometry.panes[0];
  const region = (p: Pane): string => `${p.region.x0},${p.region.y0},${p.region.x1},${p.region.y1}`;
  const covered = geometry.cover.length ? `; ${geometry.cover.join(', ')} marks covered` : '';
  // The caption names the marks the view shows, so the picture and its text agree.
  const visible = record.marks.filter(mark => {
    const b = markBounds(mark);
    return geometry.panes.some(
      p => b.x1 >= p.region.x0 && b.x0 <= p.region.x1 && b.y1 >= p.region.y0 && b.y0 <= p.region.y1
    );
  });
  const marks = visible.length
    ? `; shows ${visible.map(mark => `#${mark.id}`).join(', ')}`
    : '; shows no marks';
  const sampling = describeSampling(geometry);
  const rulers = '; rulers in the margin, in original pixels';
  switch (geometry.kind) {
    case 'map':
      return `Map of ${record.image} (${size.width}×${size.height}, ${record.marks.length} marks) at ${shown}${rulers}${marks}${covered}`;
    case 'marks':
      return `Marks of ${record.image}, region ${region(pane)} at ${shown}${sampling}${rulers}${marks}${covered}`;
    case 'closeup':
      return `Close-up of ${record.image} at ${pane.label ?? ''}, region ${region(pane)} at ${shown}${sampling}${rulers}${marks}${covered}`;
    case 'sheet':
      return `Sheet of ${geometry.panes.length} close-ups of ${record.image}: ${geometry.panes.map(p => p.label ?? '').join(' ')}${sampling}${rulers}${marks}${covered}`;
  }
}
