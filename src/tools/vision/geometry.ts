/**
 * Where each view looks and how big it is, apart from how it is drawn, so the renderer (which
 * extracts and resizes pixels) and the SVG overlay agree on one mapping.
 *
 * A pane maps original pixels to view pixels with two scales, `x' = left + (x − x0)·sx` and
 * `y' = top + (y − y0)·sy`: a fitted view rounds its width and height independently, so one scale
 * would misplace marks by up to half a view pixel per hundred.
 *
 * Every pane has a ruler margin around it (tick lines and their labels), so the rulers never
 * cover the picture, its title or its axis labels: `left` and `top` of a pane are the margin's
 * width and height (plus, in sheets, the tile's place); ./ruler-margin measures it.
 */
import { z } from 'zod';

import { PALETTE, parseMarkAddress, polygonAddress, type Colour } from './address';
import { VisionError } from './errors';
import {
  markBounds,
  pointsBounds,
  placeAddress,
  type Mark,
  type PictureSize,
  type VisionRecord
} from './marks';
import { MAX_MARKS } from './record';
import { rulerMargin, type RulerMargin } from './ruler-margin';

/** The one cap on every view's largest side, in view pixels: maps, close-ups and sheets alike. */
export const MAX_VIEW_SIDE = 1024;

/** Largest side of a close-up (below the cap: a close-up needs detail, not area). */
export const CLOSEUP_SIDE = 768;

/** Largest tile side of a sheet; tiles shrink to fit {@link MAX_VIEW_SIDE} when there are many. */
export const SHEET_TILE_SIDE = 384;

/** Most close-ups one sheet holds. */
export const MAX_SHEET_TILES = 16;

/**
 * Most a close-up enlarges. A close-up is at least 32 picture pixels across, so only pictures of
 * at most 384 pixels (icons, sprites, thumbnails) reach it, and there it shows their pixels as a
 * grid ({@link PIXEL_GRID_ZOOM}).
 */
export const MAX_ZOOM = 16;

/**
 * Zoom at which an enlarged pane shows the picture's pixels as a crisp grid (nearest neighbour)
 * instead of smoothly. Below it, people read an enlarged chart or photo as the picture, and
 * blocks would make its text and lines look broken; a view in the sidebar is drawn at about a
 * third of its size, so a source pixel at 8× is still under 3 screen pixels. At 16× each source
 * pixel is a 16-pixel block, at least 5 screen pixels even in the sidebar: the person is looking
 * at pixels, and smoothing would blur each into a gradient that is not in the picture.
 */
export const PIXEL_GRID_ZOOM = 16;

/** Height of the label strip above each sheet tile, and the gap around tiles. */
export const SHEET_LABEL_HEIGHT = 18;
export const SHEET_GAP = 4;

const coverField = z.array(z.enum(PALETTE)).max(PALETTE.length).optional();

/** What a view shows. Plain JSON: the browser sends it to the figure server's `render` route. */
export const ViewSpec = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('map'), cover: coverField }),
  z.strictObject({
    kind: z.literal('marks'),
    ids: z.array(z.number().int()).min(1).max(MAX_MARKS),
    cover: coverField
  }),
  z.strictObject({ kind: z.literal('closeup'), at: z.string().max(100), cover: coverField }),
  z.strictObject({
    kind: z.literal('sheet'),
    at: z.array(z.string().max(100)).min(1).max(MAX_SHEET_TILES),
    cover: coverField
  })
]);
export type ViewSpec = z.infer<typeof ViewSpec>;

/** A rectangle of original pixels, half-open: `x0 ≤ x < x1`. */
export interface Region {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** One picture area placed in a view. Maps, marks views and close-ups have one; sheets one per tile. */
export interface Pane {
  /** The original pixels shown (integers, inside the picture). */
  readonly region: Region;
  /** Where the pane sits in the view, and its size, in view pixels. */
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
  readonly sx: number;
  readonly sy: number;
  /** The ruler margin around the pane (inside the view: `left ≥ margin.left`). */
  readonly margin: RulerMargin;
  /** The asked position, drawn as a crosshair (close-ups and tiles). */
  readonly focus?: { readonly x: number; readonly y: number };
  /** The tile's address, written above it (sheets). */
  readonly label?: string;
  /**
   * How the pane is resampled, when not what its scales say: a view drawn smaller for display
   * (./shrink-geometry.ts) keeps its pixel grid, as the browser's downscale of it would.
   */
  readonly sampling?: PaneSampling;
}

/** A view's size and panes. */
export interface ViewGeometry {
  readonly kind: ViewSpec['kind'];
  readonly width: number;
  readonly height: number;
  readonly panes: readonly Pane[];
  readonly cover: readonly Colour[];
}

/** How a pane's pixels are resampled: shrunk, enlarged smoothly, or enlarged as a pixel grid. */
export type PaneSampling = 'reduced' | 'smooth' | 'pixel-grid';

/** How a pane is resampled (the renderer picks its kernel from this, the caption says it). */
export function paneSampling(pane: Pane): PaneSampling {
  if (pane.sampling) {
    return pane.sampling;
  }
  if (Math.min(pane.sx, pane.sy) >= PIXEL_GRID_ZOOM) {
    return 'pixel-grid';
  }
  return Math.max(pane.sx, pane.sy) > 1 ? 'smooth' : 'reduced';
}

/** Map an original x to view pixels in a pane. */
export function toViewX(pane: Pane, x: number): number {
  return pane.left + (x - pane.region.x0) * pane.sx;
}

/** Map an original y to view pixels in a pane. */
export function toViewY(pane: Pane, y: number): number {
  return pane.top + (y - pane.region.y0) * pane.sy;
}

function fit(
  region: Region,
  boxWidth: number,
  boxHeight: number,
  maxZoom: number
): { width: number; height: number; sx: number; sy: number } {
  const rw = region.x1 - region.x0;
  const rh = region.y1 - region.y0;
  const scale = Math.min(boxWidth / rw, boxHeight / rh, maxZoom);
  // Each side is rounded on its own and capped, hence two scales.
  const width = Math.min(boxWidth, Math.max(1, Math.round(rw * scale)));
  const height = Math.min(boxHeight, Math.max(1, Math.round(rh * scale)));
  return { width, height, sx: width / rw, sy: height / rh };
}

/** Grow `extent` by padding to at least `minSide`, then shift (not shrink) it into the picture. */
function regionAround(extent: Region, minSide: number, size: PictureSize, pad: number): Region {
  const place = (lo: number, hi: number, limit: number): [number, number] => {
    const side = Math.min(limit, Math.max(minSide, Math.round((hi - lo) * (1 + 2 * pad))));
    let start = Math.round((lo + hi) / 2 - side / 2);
    start = Math.max(0, Math.min(limit - side, start));
    return [start, start + side];
  };
  const [x0, x1] = place(extent.x0, extent.x1, size.width);
  const [y0, y1] = place(extent.y0, extent.y1, size.height);
  return { x0, y0, x1, y1 };
}

function closeupMinSide(size: PictureSize): number {
  return Math.min(
    Math.max(size.width, size.height),
    Math.max(32, Math.round(Math.max(size.width, size.height) / 8))
  );
}

function findMark(record: VisionRecord, id: number, where: string): Mark {
  const mark = record.marks.find(candidate => candidate.id === id);
  if (!mark) {
    const known = record.marks.map(m => `#${m.id}`).join(', ') || 'none';
    throw new VisionError(
      'unknown-mark',
      `${where}: there is no mark #${id}; marks now: ${known}.`
    );
  }
  return mark;
}

/** The area and crosshair of one close-up address, with its canonical label. */
export function closeupTarget(
  at: string,
  record: VisionRecord,
  size: PictureSize,
  where = 'at'
): { extent: Region; focus: { x: number; y: number }; label: string } {
  const address = parseMarkAddress(at, where);
  if (address.kind === 'mark') {
    const mark = findMark(record, address.id, where);
    const extent = markBounds(mark);
    const focus =
      mark.kind === 'point'
        ? { x: mark.x, y: mark.y }
        : {
            x: Math.round((extent.x0 + extent.x1) / 2),
            y: Math.round((extent.y0 + extent.y1) / 2)
          };
    return { extent, focus, label: `#${mark.id}` };
  }
  const placed = placeAddress(at, size, where);
  if (placed.kind === 'point') {
    const { x, y } = placed;
    return { extent: { x0: x, y0: y, x1: x + 1, y1: y + 1 }, focus: { x, y }, label: `${x},${y}` };
  }
  if (placed.kind === 'polygon') {
    const extent = pointsBounds(placed.points);
    const focus = {
      x: Math.round((extent.x0 + extent.x1) / 2),
      y: Math.round((extent.y0 + extent.y1) / 2)
    };
    return { extent, focus, label: polygonAddress(placed.points) };
  }
  const focus = {
    x: Math.round((placed.x0 + placed.x1) / 2),
    y: Math.round((placed.y0 + placed.y1) / 2)
  };
  return { extent: placed, focus, label: `${placed.x0},${placed.y0},${placed.x1},${placed.y1}` };
}

/**
 * A view of one pane: the pane fits `box` and the view's cap together with its margin, and sits
 * at the margin's offset.
 */
function singlePane(
  kind: 'map' | 'marks' | 'closeup',
  region: Region,
  size: PictureSize,
  box: number,
  maxZoom: number,
  cover: readonly Colour[],
  extra: Pick<Pane, 'focus' | 'label'> = {}
): ViewGeometry {
  const margin = rulerMargin(size);
  const fitted = fit(
    region,
    Math.min(box, MAX_VIEW_SIDE - margin.left - margin.right),
    Math.min(box, MAX_VIEW_SIDE - margin.top - margin.bottom),
    maxZoom
  );
  const pane: Pane = { region, left: margin.left, top: margin.top, margin, ...fitted, ...extra };
  return {
    kind,
    width: margin.left + pane.width + margin.right,
    height: margin.top + pane.height + margin.bottom,
    panes: [pane],
    cover
  };
}

/**
 * A view's geometry: output size and panes. Throws a {@link VisionError} for an address that does
 * not resolve (unknown mark, out of bounds) so the caller can report it to the model.
 */
export function viewGeometry(
  spec: ViewSpec,
  record: VisionRecord,
  size: PictureSize
): ViewGeometry {
  const cover = spec.cover ?? [];
  const whole: Region = { x0: 0, y0: 0, x1: size.width, y1: size.height };
  switch (spec.kind) {
    case 'map': {
      // Never enlarged: the map shows the picture as it is, only smaller when it must be.
      return singlePane('map', whole, size, MAX_VIEW_SIDE, 1, cover);
    }
    case 'marks': {
      // A loop, not Math.min(...spread): a spread of many ids overflows the call stack.
      const union = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
      for (const id of spec.ids) {
        const b = markBounds(findMark(record, id, 'marks view'));
        union.x0 = Math.min(union.x0, b.x0);
        union.y0 = Math.min(union.y0, b.y0);
        union.x1 = Math.max(union.x1, b.x1);
        union.y1 = Math.max(union.y1, b.y1);
      }
      const extent: Region = {
        x0: Math.max(0, union.x0),
        y0: Math.max(0, union.y0),
        x1: Math.min(size.width, union.x1),
        y1: Math.min(size.height, union.y1)
      };
      const region = regionAround(extent, closeupMinSide(size), size, 0.1);
      return singlePane('marks', region, size, MAX_VIEW_SIDE, MAX_ZOOM, cover);
    }
    case 'closeup': {
      const target = closeupTarget(spec.at, record, size);
      const region = regionAround(target.extent, closeupMinSide(size), size, 0.2);
      return singlePane('closeup', region, size, CLOSEUP_SIDE, MAX_ZOOM, cover, {
        focus: target.focus,
        label: target.label
      });
    }
    case 'sheet':
      return sheetGeometry(spec.at, record, size, cover);
  }
}

function sheetGeometry(
  at: readonly string[],
  record: VisionRecord,
  size: PictureSize,
  cover: readonly Colour[]
): ViewGeometry {
  if (at.length === 0 || at.length > MAX_SHEET_TILES) {
    throw new VisionError(
      'bad-args',
      `A sheet holds 1 to ${MAX_SHEET_TILES} addresses; got ${at.length}.`
    );
  }
  const cols = Math.ceil(Math.sqrt(at.length));
  const rows = Math.ceil(at.length / cols);
  const margin = rulerMargin(size);
  // A cell is the tile with its ruler margin, and the label strip above for the tile's address.
  const extraWidth = margin.left + margin.right;
  const extraHeight = SHEET_LABEL_HEIGHT + margin.top + margin.bottom;
  const tile = Math.floor(
    Math.min(
      SHEET_TILE_SIDE,
      (MAX_VIEW_SIDE - SHEET_GAP * (cols + 1)) / cols - extraWidth,
      (MAX_VIEW_SIDE - SHEET_GAP * (rows + 1)) / rows - extraHeight
    )
  );
  const panes = at.map((address, index): Pane => {
    const target = closeupTarget(address, record, size, `at[${index}]`);
    const region = regionAround(target.extent, closeupMinSide(size), size, 0.2);
    const fitted = fit(region, tile, tile, MAX_ZOOM);
    const col = index % cols;
    const row = Math.floor(index / cols);
    const cellLeft = SHEET_GAP + col * (tile + extraWidth + SHEET_GAP);
    const cellTop = SHEET_GAP + row * (tile + extraHeight + SHEET_GAP);
    return {
      region,
      ...fitted,
      margin,
      // Left-aligned in its cell, so the y ruler sits right beside every tile.
      left: cellLeft + margin.left,
      // Top-aligned, so the label strip and the x ruler sit right above every tile.
      top: cellTop + SHEET_LABEL_HEIGHT + margin.top,
      focus: target.focus,
      label: target.label
    };
  });
  return {
    kind: 'sheet',
    width: SHEET_GAP + cols * (tile + extraWidth + SHEET_GAP),
    height: SHEET_GAP + rows * (tile + extraHeight + SHEET_GAP),
    panes,
    cover
  };
}
