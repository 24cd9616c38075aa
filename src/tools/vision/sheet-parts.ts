/**
 * A sheet's overlay in parts, each rasterized on a small canvas of its own (the renderer
 * composites them in order): the same pixels as the whole overlay that `drawGeometry` (./draw)
 * draws, without a clip layer as large as the view per tile.
 */
import { paneElements } from './draw';
import { SHEET_LABEL_HEIGHT, type ViewGeometry } from './geometry';
import { FONT_FAMILY, type Box } from './overlay-svg';
import type { VisionRecord } from './marks';
import { paneFrameElements, TILE_LABEL_FONT_SIZE } from './rulers';

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
 * Composited in order, these parts are the overlay `drawGeometry` draws for the sheet,
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
    // Each strip draws only the frame's elements with a box on it (of the ruler's path, whose
    // box is a box per tick, the ticks elsewhere lie wholly off the strip's canvas).
    const frame = paneFrameElements(pane, geometry);
    for (const canvas of [
      ...canvasOf(geometry, above, { ...above, y1: above.y1 + pad }),
      ...canvasOf(geometry, beside, { ...beside, y0: beside.y0 - pad })
    ]) {
      const { left, top, width, height } = canvas.drawn;
      const drawn = { x0: left, y0: top, x1: left + width, y1: top + height };
      const content = frame
        .filter(element =>
          element.boxes.some(box => overlaps(grow(box, OVERLAY_BOX_MARGIN), drawn))
        )
        .map(element => element.svg)
        .join('');
      if (content) {
        parts.push({ content, canvases: [canvas] });
      }
    }
  }
  return parts;
}

/**
 * How far past an element's box a canvas of {@link paneOverlayParts} reaches: the boxes are
 * estimates (a label's ink, a stroke's antialiasing), and a canvas a little larger costs little.
 */
export const OVERLAY_BOX_MARGIN = 2;

/**
 * Most element boxes {@link paneOverlayParts} gathers into canvases (a map of 50 marks has about
 * 150). Past it the gathering costs the main thread more than the canvases save (measured: 10–25
 * ms for 100–500 marks, whose boxes mostly merge into one canvas), and the view is one canvas.
 */
export const MAX_PART_BOXES = 256;

function overlaps(a: Box, b: Box): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/**
 * Rectangles that cover `boxes`, none overlapping another: each the bounding box of boxes that
 * overlap, directly or through others, merged again until no two overlap; with each, the
 * indices of the boxes it covers. Each pass sweeps the boxes in order of their left edge, so a
 * map of hundreds of marks costs no pass over every pair.
 */
function disjointCover(boxes: readonly Box[]): Array<{ box: Box; members: number[] }> {
  let current = boxes.map((box, i) => ({ box, members: [i] }));
  for (;;) {
    current.sort((a, b) => a.box.x0 - b.box.x0);
    const parent = current.map((_, i) => i);
    const root = (i: number): number => {
      while (parent[i] !== i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
      }
      return i;
    };
    let active: number[] = [];
    for (let i = 0; i < current.length; i++) {
      const { box } = current[i];
      active = active.filter(j => current[j].box.x1 > box.x0);
      for (const j of active) {
        if (overlaps(current[j].box, box)) {
          parent[root(i)] = root(j);
        }
      }
      active.push(i);
    }
    const merged = new Map<number, { box: Box; members: number[] }>();
    current.forEach((entry, i) => {
      const r = root(i);
      const into = merged.get(r);
      if (into) {
        into.box = union([into.box, entry.box]);
        into.members.push(...entry.members);
      } else {
        merged.set(r, { box: entry.box, members: [...entry.members] });
      }
    });
    if (merged.size === current.length) {
      return current;
    }
    current = [...merged.values()];
  }
}

/**
 * The overlay of a view of one pane (a map, a close-up) in parts: its elements (marks, numbers,
 * crosshair, ticks and tick labels) gathered into canvases that do not overlap, each as large as
 * the elements on it, so the rasterizer draws those instead of the whole view (most of a map's
 * overlay is empty, and its cost grows with the canvas' area) and the compositor reads only them.
 * Every element's box (the ruler's path has one per tick) lies whole on one canvas, and a canvas
 * draws only the elements with a box on it: nothing is cut but at the view's edge, where the
 * whole overlay cuts it too, so composited the parts are the whole overlay pixel for pixel (a test
 * compares). Sheets have their own parts ({@link sheetOverlayParts}): their tiles clip the marks.
 */
export function paneOverlayParts(geometry: ViewGeometry, record: VisionRecord): OverlayPart[] {
  if (geometry.kind === 'sheet' || geometry.panes.length !== 1) {
    throw new Error(`a ${geometry.kind} of ${geometry.panes.length} panes is not drawn in parts`);
  }
  const [pane] = geometry.panes;
  const view = { x0: 0, y0: 0, x1: geometry.width, y1: geometry.height };
  const margin = OVERLAY_BOX_MARGIN;
  const onView = (box: Box): Box | undefined => {
    const grown = grow(box, margin);
    return intersect(
      {
        x0: Math.floor(grown.x0),
        y0: Math.floor(grown.y0),
        x1: Math.ceil(grown.x1),
        y1: Math.ceil(grown.y1)
      },
      view
    );
  };
  // In the order the whole overlay draws them: the pane's content, then its frame.
  const elements = [
    ...paneElements(pane, record, geometry).map(element => ({
      svg: element.svg,
      boxes: [element.box]
    })),
    ...paneFrameElements(pane, geometry)
  ].map(element => ({
    svg: element.svg,
    boxes: element.boxes.map(onView).filter((box): box is Box => box !== undefined)
  }));
  // Canvases: every box, those that overlap merged (and merged again, as a merged canvas may
  // reach another) until none overlap. A canvas draws, in order, the elements with a box on it.
  const owner: number[] = [];
  const boxes: Box[] = [];
  elements.forEach((element, index) =>
    element.boxes.forEach(box => {
      owner.push(index);
      boxes.push(box);
    })
  );
  if (boxes.length > MAX_PART_BOXES) {
    // Hundreds of marks: the whole view on one canvas, as gathering them would end.
    const shows = rect(view);
    return [
      {
        content: elements.map(element => element.svg).join(''),
        canvases: [{ shows, drawn: shows }]
      }
    ];
  }
  return disjointCover(boxes).map(({ box, members }) => {
    const shows = rect(box);
    const drawn = [...new Set(members.map(member => owner[member]))].sort((a, b) => a - b);
    return {
      content: drawn.map(index => elements[index].svg).join(''),
      canvases: [{ shows, drawn: shows }]
    };
  });
}

/** One canvas of an overlay part, as an SVG document of the canvas' size. */
export function overlayPartSvg(content: string, canvas: ViewRect): string {
  const { left, top, width, height } = canvas;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="${left} ${top} ${width} ${height}" font-family="${FONT_FAMILY}">${content}</svg>`
  );
}
