/**
 * Addresses and colours of the vision tools: `#17` a stored mark, `640,480` a point,
 * `120,240,360,520` a box, `10,10,90,10,50,80` (6 or more) a polygon — the number of coordinates
 * decides — and picture addresses (a workspace path relative to the Jupyter root, or
 * `cell:<cell-id>/<output-index>`).
 */
import { VisionError } from './errors';

/** The colours a mark may have. What they mean is the caller's business. */
export const PALETTE = [
  'red',
  'green',
  'blue',
  'yellow',
  'magenta',
  'cyan',
  'orange',
  'white'
] as const;

/** A palette colour name. */
export type Colour = (typeof PALETTE)[number];

/** How each palette colour is drawn: saturated, so a mark reads over most pictures. */
export const PALETTE_HEX: Readonly<Record<Colour, string>> = {
  red: '#ff2020',
  green: '#20d040',
  blue: '#2060ff',
  yellow: '#ffe000',
  magenta: '#ff20ff',
  cyan: '#00e0ff',
  orange: '#ff8c00',
  white: '#ffffff'
};

/** Whether a string names a palette colour. */
export function isColour(value: string): value is Colour {
  return (PALETTE as readonly string[]).includes(value);
}

/**
 * Most vertices a polygon may have: enough to trace an outline by hand or from a detector's mask,
 * few enough that one mark cannot make a record, a result text or a view out of proportion.
 */
export const MAX_POLYGON_VERTICES = 200;

/** A polygon's vertex `[x, y]` in original pixels. */
export type Vertex = readonly [number, number];

/** A parsed mark address. */
export type MarkAddress =
  | { kind: 'mark'; id: number }
  | { kind: 'point'; x: number; y: number }
  | { kind: 'box'; x0: number; y0: number; x1: number; y1: number }
  | { kind: 'polygon'; points: Vertex[] };

const MARK_REF = /^#(\d{1,9})$/;
// Whitespace around numbers is accepted (models write "640, 480"); anything else is refused.
const COORDINATE = /^\s*(-?\d{1,9})\s*$/;

/**
 * Parse `#n`, `x,y`, `x0,y0,x1,y1` or `x0,y0,x1,y1,x2,y2,…`. Coordinates must be whole original
 * pixels; bounds are checked later against the picture. Throws `bad-address` naming the forms.
 */
export function parseMarkAddress(text: string, where = 'address'): MarkAddress {
  const trimmed = text.trim();
  const ref = MARK_REF.exec(trimmed);
  if (ref) {
    return { kind: 'mark', id: Number(ref[1]) };
  }
  const parts = trimmed.split(',');
  if (parts.length > 2 * MAX_POLYGON_VERTICES) {
    // Checked before parsing, so an enormous address costs nothing.
    throw new VisionError(
      'bad-polygon',
      `${where}: a polygon has at most ${MAX_POLYGON_VERTICES} vertices (${2 * MAX_POLYGON_VERTICES} numbers), not ${Math.floor(parts.length / 2)}; simplify the outline.`
    );
  }
  const numbers = parts
    .map(part => COORDINATE.exec(part))
    .map(match => (match ? Number(match[1]) : NaN));
  const hint =
    'use "#17" for a mark, "640,480" for a point, "120,240,360,520" for a box or "x0,y0,x1,y1,x2,y2,…" (3 or more vertices) for a polygon, in whole pixels';
  const count = numbers.length;
  if (numbers.some(Number.isNaN) || count < 2 || count % 2 === 1) {
    throw new VisionError('bad-address', `${where}: "${text}" is not an address; ${hint}.`);
  }
  if (count === 2) {
    return { kind: 'point', x: numbers[0], y: numbers[1] };
  }
  if (count === 4) {
    return { kind: 'box', x0: numbers[0], y0: numbers[1], x1: numbers[2], y1: numbers[3] };
  }
  const points: Vertex[] = [];
  for (let i = 0; i < count; i += 2) {
    points.push([numbers[i], numbers[i + 1]]);
  }
  return { kind: 'polygon', points };
}

/** A polygon's vertices as an address: `x0,y0,x1,y1,x2,y2,…`. */
export function polygonAddress(points: readonly Vertex[]): string {
  return points.map(([x, y]) => `${x},${y}`).join(',');
}

/** Twice a polygon's signed area (shoelace); zero for a polygon with no area. */
export function polygonArea2(points: readonly Vertex[]): number {
  let sum = 0;
  for (let i = 0; i < points.length; i++) {
    const [x0, y0] = points[i];
    const [x1, y1] = points[(i + 1) % points.length];
    sum += x0 * y1 - x1 * y0;
  }
  return sum;
}

/**
 * The colour of class `label` in a class list: class i gets the i-th palette colour (wrapping),
 * so the same class list colours the same way in the page, the views and every notebook.
 */
export function classColour(classes: readonly string[] | undefined, label: string): Colour {
  const index = classes?.indexOf(label) ?? -1;
  return PALETTE[Math.max(0, index) % PALETTE.length];
}

/** A parsed picture address. */
export type PictureAddress =
  { kind: 'cell'; cellId: string; output: number } | { kind: 'path'; path: string };

const CELL_ADDRESS = /^cell:([A-Za-z0-9_-]{1,128})\/(\d{1,4})$/;

/**
 * Parse a picture address. Workspace paths are checked for shape only here (relative, no `..`,
 * no NUL); the figure server confines them to the Jupyter root for real.
 */
export function parsePictureAddress(text: string): PictureAddress {
  if (text.startsWith('cell:')) {
    const match = CELL_ADDRESS.exec(text);
    if (!match) {
      throw new VisionError(
        'bad-address',
        `Picture "${text}" is not a cell address; write cell:<cell-id>/<output-index>, e.g. cell:5f3c2a/0.`
      );
    }
    return { kind: 'cell', cellId: match[1], output: Number(match[2]) };
  }
  if (text.length === 0 || text.includes('\0')) {
    throw new VisionError(
      'bad-address',
      'Picture address is empty or contains NUL; give a workspace path.'
    );
  }
  if (text.startsWith('/') || text.startsWith('\\') || /^[A-Za-z]:/.test(text)) {
    throw new VisionError(
      'bad-address',
      `Picture "${text}" is an absolute path; give a path relative to the Jupyter root.`
    );
  }
  if (text.split(/[\\/]/).includes('..')) {
    throw new VisionError(
      'bad-address',
      `Picture "${text}" contains "..": pictures must lie inside the Jupyter root.`
    );
  }
  return { kind: 'path', path: text };
}
