/**
 * Addresses and colours of the vision tools: `#17` a stored mark, `640,480` a point,
 * `120,240,360,520` a box (the number of coordinates decides), and picture addresses (a workspace
 * path relative to the Jupyter root, or `cell:<cell-id>/<output-index>`).
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

/** A parsed mark address. */
export type MarkAddress =
  | { kind: 'mark'; id: number }
  | { kind: 'point'; x: number; y: number }
  | { kind: 'box'; x0: number; y0: number; x1: number; y1: number };

const MARK_REF = /^#(\d{1,9})$/;
// Whitespace around numbers is accepted (models write "640, 480"); anything else is refused.
const COORDINATE = /^\s*(-?\d{1,9})\s*$/;

/**
 * Parse `#n`, `x,y` or `x0,y0,x1,y1`. Coordinates must be whole original pixels; bounds are
 * checked later against the picture. Throws `bad-address` naming the three accepted forms.
 */
export function parseMarkAddress(text: string, where = 'address'): MarkAddress {
  const trimmed = text.trim();
  const ref = MARK_REF.exec(trimmed);
  if (ref) {
    return { kind: 'mark', id: Number(ref[1]) };
  }
  const parts = trimmed.split(',');
  const numbers = parts
    .map(part => COORDINATE.exec(part))
    .map(match => (match ? Number(match[1]) : NaN));
  const hint =
    'use "#17" for a mark, "640,480" for a point or "120,240,360,520" for a box, in whole pixels';
  if (numbers.some(Number.isNaN) || (numbers.length !== 2 && numbers.length !== 4)) {
    throw new VisionError('bad-address', `${where}: "${text}" is not an address; ${hint}.`);
  }
  if (numbers.length === 2) {
    return { kind: 'point', x: numbers[0], y: numbers[1] };
  }
  return { kind: 'box', x0: numbers[0], y0: numbers[1], x1: numbers[2], y1: numbers[3] };
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
