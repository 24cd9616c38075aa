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
  SHEET_LABEL_HEIGHT,
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
const TILE_LABEL_FONT_SIZE = 12;
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

/** Tick lines from the picture's edge outwards, and their labels, all in the margin. */
function drawTicks(pane: Pane): string {
  const { xs, ys } = paneTicks(pane);
  const lines: string[] = [];
  for (const x of xs) {
    lines.push(`M${n(toViewX(pane, x))} ${n(pane.top - TICK_LENGTH)}v${TICK_LENGTH}`);
  }
  for (const y of ys) {
    lines.push(`M${n(pane.left - TICK_LENGTH)} ${n(toViewY(pane, y))}h${TICK_LENGTH}`);
  }
  // Plain text: on the flat margin a halo would only cost the rasterizer.
  const labels = tickLabels(pane).map(
    label =>
      `<text x="${n(label.x)}" y="${n(centredBaseline(label.y, TICK_FONT_SIZE))}" ` +
      `font-size="${TICK_FONT_SIZE}" text-anchor="middle" fill="${RULER_COLOUR}">${label.text}</text>`
  );
  return (
    `<path d="${lines.join('')}" stroke="${RULER_COLOUR}" stroke-width="1" fill="none"/>` +
    labels.join('')
  );
}

/** A rectangle of view pixels, by its edges. */
interface Box {
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
interface Drawn {
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
function paneElements(pane: Pane, record: VisionRecord, geometry: ViewGeometry): Drawn[] {
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

/** What a pane draws in its margin: rulers, and a sheet tile's label. */
function paneFrame(pane: Pane, geometry: ViewGeometry): string {
  const label =
    geometry.kind === 'sheet' && pane.label !== undefined
      ? haloText(
          pane.label,
          pane.left + pane.width / 2,
          tileLabelBaseline(pane),
          TILE_LABEL_FONT_SIZE,
          '#ffffff',
          'middle'
        )
      : '';
  return drawTicks(pane) + label;
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

/** The overlay of a view whose geometry is already known, as an SVG document of the view's size. */
export function drawGeometry(geometry: ViewGeometry, record: VisionRecord): string {
  const panes = geometry.panes
    .map((pane, index) => drawPane(pane, index, record, geometry))
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${geometry.width}" height="${geometry.height}" ` +
    `viewBox="0 0 ${geometry.width} ${geometry.height}" font-family="${FONT_FAMILY}">${panes}</svg>`
  );
}

/** A rectangle of a view, in view pixels (integers). */
export interface ViewRect {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/**
 * One canvas of an overlay part: drawn over the rectangle `drawn` (which may reach past the
 * view's edges), of which only the rectangle `shows` (inside the view) is composited.
 */
export interface OverlayCanvas {
  readonly shows: ViewRect;
  readonly drawn: ViewRect;
}

/**
 * Part of a sheet's overlay, rasterized on its own: `content` (SVG elements in view coordinates)
 * drawn once on each of its canvases, each showing a rectangle of the view and nothing outside
 * it. Composited in order, the parts give the view's overlay.
 */
export interface OverlayPart {
  readonly content: string;
  readonly canvases: readonly OverlayCanvas[];
}

/**
 * How far past what it shows an overlay part's canvas reaches, to hold whole what crosses its
 * edge: a tick label or tick at the edge between a tile's two ruler strips, a straight stroke at
 * the tile's edge. The rasterizer cuts a path at its canvas' edge; a cut curve is flattened
 * differently, which moved the antialiasing of a few of its pixels by up to 30 levels.
 */
export const OVERLAY_CANVAS_PAD = 8;

/**
 * How far past its tile a tile's canvas reaches, at most, to hold whole a curve (an ellipse, a
 * mark number) that crosses the tile's edge. Larger ellipses are cut this far out: a few of
 * their pixels inside the tile may then differ by some levels of antialiasing from what the
 * whole overlay draws.
 */
export const OVERLAY_CURVE_REACH = 64;

function grow(box: Box, by: number): Box {
  return { x0: box.x0 - by, y0: box.y0 - by, x1: box.x1 + by, y1: box.y1 + by };
}

function intersect(a: Box, b: Box): Box | undefined {
  const box = {
    x0: Math.max(a.x0, b.x0),
    y0: Math.max(a.y0, b.y0),
    x1: Math.min(a.x1, b.x1),
    y1: Math.min(a.y1, b.y1)
  };
  return box.x1 > box.x0 && box.y1 > box.y0 ? box : undefined;
}

function union(boxes: readonly Box[]): Box {
  return {
    x0: Math.min(...boxes.map(box => box.x0)),
    y0: Math.min(...boxes.map(box => box.y0)),
    x1: Math.max(...boxes.map(box => box.x1)),
    y1: Math.max(...boxes.map(box => box.y1))
  };
}

function rect(box: Box): ViewRect {
  return { left: box.x0, top: box.y0, width: box.x1 - box.x0, height: box.y1 - box.y0 };
}

/**
 * The canvas that shows `shows` (cut to the view) and is drawn over `drawn`, both rounded out to
 * whole pixels; `drawn` is not cut to the view, as the whole overlay's clip layer holds its
 * content whole past the view's edge too. None when nothing of `shows` is in the view.
 */
function canvasOf(geometry: ViewGeometry, shows: Box, drawn: Box): OverlayCanvas[] {
  const outward = (box: Box): Box => ({
    x0: Math.floor(box.x0),
    y0: Math.floor(box.y0),
    x1: Math.ceil(box.x1),
    y1: Math.ceil(box.y1)
  });
  const canvas = outward(union([drawn, shows]));
  const view = { x0: 0, y0: 0, x1: geometry.width, y1: geometry.height };
  const shown = intersect(outward(shows), view);
  return shown ? [{ shows: rect(shown), drawn: rect(canvas) }] : [];
}

/**
 * A sheet's overlay in parts, tile after tile, so that the rasterizer draws small canvases
 * instead of the whole view (its cost grows with the canvas' area) and needs no clip layers:
 * - the tile's marks and crosshair on a canvas as large as they are, which shows only what falls
 *   inside the tile, as the whole overlay's clip path does. Each element is drawn whole (a
 *   straight stroke, which the rasterizer cuts exactly, up to {@link OVERLAY_CANVAS_PAD} past
 *   the tile; a curve up to {@link OVERLAY_CURVE_REACH});
 * - its rulers and label on two strips: above the tile (the label strip, the x ruler and the
 *   corner) and left of it down to its bottom margin. {@link tickLabels} keeps every tick label
 *   inside the tile's margin and ticks run from the tile's edge into it, so the strips hold all
 *   of them (the right and bottom margins only hold ends of labels and ticks at the tile's last
 *   coordinates, inside these strips). The upper strip is widened for a label wider than the
 *   tile's cell, as the whole overlay would draw it.
 * Composited in order, these parts are the overlay {@link drawGeometry} draws for the sheet,
 * pixel for pixel (a test compares them).
 */
export function sheetOverlayParts(geometry: ViewGeometry, record: VisionRecord): OverlayPart[] {
  const parts: OverlayPart[] = [];
  const pad = OVERLAY_CANVAS_PAD;
  for (const pane of geometry.panes) {
    const tile = {
      x0: pane.left,
      y0: pane.top,
      x1: pane.left + pane.width,
      y1: pane.top + pane.height
    };
    const elements = paneElements(pane, record, geometry);
    const reached = elements
      .map(element =>
        intersect(element.box, grow(tile, element.curved ? OVERLAY_CURVE_REACH : pad))
      )
      .filter((box): box is Box => box !== undefined);
    if (reached.length) {
      const drawn = union(reached);
      const shows = intersect(drawn, tile);
      if (shows) {
        parts.push({
          content: elements.map(element => element.svg).join(''),
          canvases: canvasOf(geometry, shows, drawn)
        });
      }
    }
    const { margin } = pane;
    const cellLeft = pane.left - margin.left;
    const cellRight = pane.left + pane.width + margin.right;
    // At most an em per character, its halo and antialiasing besides: these labels are digits,
    // commas and '#', all narrower.
    const half = ((pane.label?.length ?? 0) * TILE_LABEL_FONT_SIZE) / 2 + 3;
    const centre = pane.left + pane.width / 2;
    const above = {
      x0: Math.min(cellLeft, centre - half),
      y0: pane.top - margin.top - SHEET_LABEL_HEIGHT,
      x1: Math.max(cellRight, centre + half),
      y1: pane.top
    };
    const beside = {
      x0: cellLeft,
      y0: pane.top,
      x1: pane.left,
      y1: pane.top + pane.height + margin.bottom
    };
    parts.push({
      content: paneFrame(pane, geometry),
      canvases: [
        ...canvasOf(geometry, above, { ...above, y1: above.y1 + pad }),
        ...canvasOf(geometry, beside, { ...beside, y0: beside.y0 - pad })
      ]
    });
  }
  return parts;
}

/** One canvas of an overlay part, as an SVG document of the canvas' size. */
export function overlayPartSvg(content: string, canvas: ViewRect): string {
  const { left, top, width, height } = canvas;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="${left} ${top} ${width} ${height}" font-family="${FONT_FAMILY}">${content}</svg>`
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
