/**
 * What a vision record is made of — points, boxes and polygons in original pixels — and where a
 * mark or an address lies: the shapes every layer (tools, views, kernel, page) reads.
 */
import {
  parseMarkAddress,
  polygonAddress,
  polygonArea2,
  type Colour,
  type Vertex
} from './address';
import { VisionError } from './errors';

/** A numbered point: a circle of radius `r` around `(x, y)`, in original pixels. */
export interface PointMark {
  readonly id: number;
  readonly kind: 'point';
  readonly x: number;
  readonly y: number;
  readonly r: number;
  readonly caption: string;
  readonly colour: Colour;
  /** One of the record's `classes`; absent on unlabelled marks (and on every older record). */
  readonly label?: string;
}

/** A numbered box from `(x0, y0)` to `(x1, y1)`, in original pixels, `x0 < x1`, `y0 < y1`. */
export interface BoxMark {
  readonly id: number;
  readonly kind: 'box';
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
  readonly caption: string;
  readonly colour: Colour;
  readonly label?: string;
}

/**
 * A numbered polygon through 3 or more vertices in original pixels (on pixel edges, as a box's
 * corners are), closed back to its first vertex; it has an area.
 */
export interface PolygonMark {
  readonly id: number;
  readonly kind: 'polygon';
  readonly points: readonly Vertex[];
  readonly caption: string;
  readonly colour: Colour;
  readonly label?: string;
}

/** A stored mark. */
export type Mark = PointMark | BoxMark | PolygonMark;

/**
 * The marks of one picture.
 *
 * `lastId` is the highest mark number ever handed out on this picture. Numbers are never reused
 * after a removal: the model (and the user reading the transcript) refers to marks by number, and
 * `#4` meaning a different thing before and after a removal would make old views lie.
 */
export interface VisionRecord {
  readonly image: string;
  /**
   * The fixed class list of a labelling session (`Vision(picture, classes=[…])`): every `label`
   * is one of these. Absent on records made without one.
   */
  readonly classes?: readonly string[];
  readonly marks: readonly Mark[];
  readonly lastId: number;
}

/** A picture's size in original pixels. */
export interface PictureSize {
  readonly width: number;
  readonly height: number;
}

/** Where a point, box or polygon goes, checked against the picture; `#n` is refused here. */
export type Placement =
  | { kind: 'point'; x: number; y: number }
  | { kind: 'box'; x0: number; y0: number; x1: number; y1: number }
  | { kind: 'polygon'; points: Vertex[] };

/**
 * Parse and bounds-check a position address. Points lie on a pixel (`0 ≤ x < width`); box edges
 * and polygon vertices lie between pixels (`0 ≤ x0 < x1 ≤ width`, `0 ≤ x ≤ width`).
 */
export function placeAddress(at: string, size: PictureSize, where: string): Placement {
  const address = parseMarkAddress(at, where);
  const { width, height } = size;
  switch (address.kind) {
    case 'mark':
      throw new VisionError(
        'bad-address',
        `${where}: "${at}" names a mark; give a position "x,y", a box "x0,y0,x1,y1" or a polygon "x0,y0,x1,y1,x2,y2,…".`
      );
    case 'point':
      if (address.x < 0 || address.x >= width || address.y < 0 || address.y >= height) {
        throw new VisionError(
          'out-of-bounds',
          `${where}: point ${address.x},${address.y} is outside the ${width}×${height} picture; x runs 0–${width - 1}, y 0–${height - 1}.`
        );
      }
      return address;
    case 'box': {
      const { x0, y0, x1, y1 } = address;
      if (x0 >= x1 || y0 >= y1) {
        throw new VisionError(
          'degenerate-box',
          `${where}: box ${at} has no area; give x0,y0,x1,y1 with x0 < x1 and y0 < y1.`
        );
      }
      if (x0 < 0 || y0 < 0 || x1 > width || y1 > height) {
        throw new VisionError(
          'out-of-bounds',
          `${where}: box ${at} reaches outside the ${width}×${height} picture; keep 0 ≤ x ≤ ${width} and 0 ≤ y ≤ ${height}.`
        );
      }
      return address;
    }
    case 'polygon': {
      const outside = address.points.find(([x, y]) => x < 0 || y < 0 || x > width || y > height);
      if (outside) {
        throw new VisionError(
          'out-of-bounds',
          `${where}: polygon vertex ${outside[0]},${outside[1]} is outside the ${width}×${height} picture; keep 0 ≤ x ≤ ${width} and 0 ≤ y ≤ ${height}.`
        );
      }
      if (polygonArea2(address.points) === 0) {
        throw new VisionError(
          'bad-polygon',
          `${where}: polygon ${polygonAddress(address.points).slice(0, 80)} has no area; give 3 or more vertices that are not on one line.`
        );
      }
      return address;
    }
  }
}

/** Where a stored mark is, as a placement. */
export function placementOf(mark: Mark): Placement {
  switch (mark.kind) {
    case 'point':
      return { kind: 'point', x: mark.x, y: mark.y };
    case 'box':
      return { kind: 'box', x0: mark.x0, y0: mark.y0, x1: mark.x1, y1: mark.y1 };
    case 'polygon':
      return { kind: 'polygon', points: [...mark.points] };
  }
}

/** The extent of a list of vertices. */
export function pointsBounds(points: readonly Vertex[]): {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
} {
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

/** A mark's extent in original pixels (a point's circle as its bounding square). */
export function markBounds(mark: Mark): { x0: number; y0: number; x1: number; y1: number } {
  switch (mark.kind) {
    case 'box':
      return { x0: mark.x0, y0: mark.y0, x1: mark.x1, y1: mark.y1 };
    case 'point':
      return { x0: mark.x - mark.r, y0: mark.y - mark.r, x1: mark.x + mark.r, y1: mark.y + mark.r };
    case 'polygon':
      return pointsBounds(mark.points);
  }
}

/** A mark's address as the tools write it: `x,y`, `x0,y0,x1,y1` or the polygon's vertices. */
export function markAddress(mark: Mark): string {
  switch (mark.kind) {
    case 'point':
      return `${mark.x},${mark.y}`;
    case 'box':
      return `${mark.x0},${mark.y0},${mark.x1},${mark.y1}`;
    case 'polygon':
      return polygonAddress(mark.points);
  }
}
