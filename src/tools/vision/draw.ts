/**
 * Views as SVG overlays (pure strings): each pane's marks, mark numbers and crosshair, over its
 * margin (./rulers: ticks, tick labels, a sheet tile's label). The picture itself is composited
 * underneath by the renderer, which uses the same {@link viewGeometry}, on a canvas with a ruler
 * margin around each pane.
 */
import { PALETTE_HEX } from './address';
import {
  paneSampling,
  toViewX,
  toViewY,
  viewGeometry,
  type Pane,
  type ViewGeometry,
  type ViewSpec
} from './geometry';
import { FONT_FAMILY, HALO, haloText, svgNumber as n, type Box } from './overlay-svg';
import { DIGIT_EM } from './ruler-margin';
import { markBounds, type Mark, type PictureSize, type VisionRecord } from './marks';
import { paneFrame } from './rulers';

const MARK_FONT_SIZE = 13;

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
  } else if (mark.kind === 'polygon') {
    const xs = mark.points.map(([x]) => toViewX(pane, x));
    const ys = mark.points.map(([, y]) => toViewY(pane, y));
    const geometry = `points="${xs.map((x, i) => `${n(x)},${n(ys[i])}`).join(' ')}" stroke-linejoin="round"`;
    shape = {
      svg:
        `<polygon ${geometry} fill="none" stroke="${HALO}" stroke-width="5" stroke-opacity="0.6"/>` +
        `<polygon ${geometry} fill="${fill}" stroke="${colour}" stroke-width="2.5"/>`,
      box: {
        x0: Math.min(...xs) - reach,
        y0: Math.min(...ys) - reach,
        x1: Math.max(...xs) + reach,
        y1: Math.max(...ys) + reach
      },
      // Slanted edges are cut at the canvas' edge as a curve's are.
      curved: true
    };
    // The number stands above the topmost vertex (the leftmost of equals), as a box's corner.
    const top = ys.reduce(
      (best, y, i) => (y < ys[best] || (y === ys[best] && xs[i] < xs[best]) ? i : best),
      0
    );
    numberX = xs[top] + 1;
    numberY = ys[top] - 4;
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
