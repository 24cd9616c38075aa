/**
 * The mark record of one picture, and the only two functions that change it.
 *
 * Both functions are pure and throw a {@link VisionError} on bad input instead of repairing it: a
 * record that silently absorbed a malformed mark would be wrong invisibly, and the same functions
 * run live and on replay (the fold), so a rebuilt record is the record the model worked with.
 */
import { parseMarkAddress, type Colour, isColour } from './address';
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
}

/** A stored mark. */
export type Mark = PointMark | BoxMark;

/**
 * The marks of one picture.
 *
 * `lastId` is the highest mark number ever handed out on this picture. Numbers are never reused
 * after a removal: the model (and the user reading the transcript) refers to marks by number, and
 * `#4` meaning a different thing before and after a removal would make old views lie.
 */
export interface VisionRecord {
  readonly image: string;
  readonly marks: readonly Mark[];
  readonly lastId: number;
}

/** A picture's size in original pixels. */
export interface PictureSize {
  readonly width: number;
  readonly height: number;
}

/** One mark as `vision_mark` asks for it. */
export interface MarkArg {
  readonly at: string;
  readonly r?: number;
  readonly caption?: string;
  readonly colour?: string;
}

/** The record-changing part of `vision_mark`'s arguments. */
export interface MarkArgs {
  readonly marks: readonly MarkArg[];
}

/** One `vision_update` operation on mark number `mark`. */
export interface UpdateOp {
  readonly mark: number;
  readonly at?: string;
  readonly caption?: string;
  readonly colour?: string;
  readonly remove?: boolean;
}

/** The record-changing part of `vision_update`'s arguments. */
export interface UpdateArgs {
  readonly ops: readonly UpdateOp[];
}

/** Colour of a mark when the caller names none. */
export const DEFAULT_COLOUR: Colour = 'green';

/** Longest caption kept on a mark (characters); longer ones are refused, not cut. */
export const MAX_CAPTION_LENGTH = 200;

/** Most marks one picture may hold, so a runaway loop cannot make views unreadable. */
export const MAX_MARKS = 500;

/** An empty record for a picture. */
export function emptyRecord(image: string): VisionRecord {
  return { image, marks: [], lastId: 0 };
}

/**
 * The radius a point gets when the caller gives none: 2 % of the picture's shorter side, so it
 * reads at map scale on small and large pictures alike.
 */
export function defaultRadius(size: PictureSize): number {
  return Math.max(4, Math.round(Math.min(size.width, size.height) * 0.02));
}

/** Largest radius allowed: a circle bigger than the picture's longer side marks nothing. */
export function maxRadius(size: PictureSize): number {
  return Math.max(size.width, size.height);
}

function checkSize(size: PictureSize): void {
  const ok = (n: number): boolean => Number.isInteger(n) && n > 0;
  if (!ok(size.width) || !ok(size.height)) {
    throw new VisionError(
      'bad-picture',
      `Picture size ${size.width}×${size.height} is not usable.`
    );
  }
}

function checkColour(colour: string | undefined, where: string): Colour | undefined {
  if (colour === undefined) {
    return undefined;
  }
  if (!isColour(colour)) {
    throw new VisionError(
      'bad-colour',
      `${where}: colour "${colour}" is not in the palette; use one of red, green, blue, yellow, magenta, cyan, orange, white.`
    );
  }
  return colour;
}

function checkCaption(caption: string | undefined, where: string): string | undefined {
  if (caption !== undefined && caption.length > MAX_CAPTION_LENGTH) {
    throw new VisionError(
      'bad-caption',
      `${where}: caption is ${caption.length} characters; keep it under ${MAX_CAPTION_LENGTH}.`
    );
  }
  return caption;
}

function checkRadius(r: number, size: PictureSize, where: string): number {
  const max = maxRadius(size);
  if (!Number.isInteger(r) || r < 1 || r > max) {
    throw new VisionError(
      'bad-radius',
      `${where}: r ${r} is out of range; give a whole number of pixels from 1 to ${max}.`
    );
  }
  return r;
}

/** Where a point or box goes, checked against the picture; `#n` is refused here. */
type Placement =
  | { kind: 'point'; x: number; y: number }
  | { kind: 'box'; x0: number; y0: number; x1: number; y1: number };

/**
 * Parse and bounds-check a position address. Points lie on a pixel (`0 ≤ x < width`); box edges
 * lie between pixels (`0 ≤ x0 < x1 ≤ width`).
 */
export function placeAddress(at: string, size: PictureSize, where: string): Placement {
  const address = parseMarkAddress(at, where);
  const { width, height } = size;
  switch (address.kind) {
    case 'mark':
      throw new VisionError(
        'bad-address',
        `${where}: "${at}" names a mark; give a position "x,y" or a box "x0,y0,x1,y1".`
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
  }
}

function markAt(
  placement: Placement,
  id: number,
  r: number,
  caption: string,
  colour: Colour
): Mark {
  return placement.kind === 'point'
    ? { id, kind: 'point', x: placement.x, y: placement.y, r, caption, colour }
    : {
        id,
        kind: 'box',
        x0: placement.x0,
        y0: placement.y0,
        x1: placement.x1,
        y1: placement.y1,
        caption,
        colour
      };
}

/**
 * Add marks, numbered in the order given, continuing after the highest number ever used on this
 * picture. Returns a new record and the new marks; throws on the first bad mark (nothing added).
 */
export function applyMarkArgs(
  record: VisionRecord,
  args: MarkArgs,
  size: PictureSize
): { record: VisionRecord; added: Mark[] } {
  checkSize(size);
  if (args.marks.length === 0) {
    throw new VisionError('bad-args', 'vision_mark: give at least one mark in "marks".');
  }
  if (record.marks.length + args.marks.length > MAX_MARKS) {
    throw new VisionError(
      'too-many-marks',
      `vision_mark: the picture would hold more than ${MAX_MARKS} marks; remove some with vision_update first.`
    );
  }
  const added = args.marks.map((arg, index): Mark => {
    const where = `marks[${index}]`;
    const placement = placeAddress(arg.at, size, where);
    if (placement.kind === 'box' && arg.r !== undefined) {
      throw new VisionError('bad-radius', `${where}: r applies to points only; drop it for a box.`);
    }
    const r = arg.r === undefined ? defaultRadius(size) : checkRadius(arg.r, size, where);
    const caption = checkCaption(arg.caption, where) ?? '';
    const colour = checkColour(arg.colour, where) ?? DEFAULT_COLOUR;
    return markAt(placement, record.lastId + 1 + index, r, caption, colour);
  });
  return {
    record: {
      image: record.image,
      marks: [...record.marks, ...added],
      lastId: record.lastId + added.length
    },
    added
  };
}

/** What one update did, for the result text. */
export interface UpdateChange {
  readonly id: number;
  readonly removed: boolean;
  readonly mark?: Mark;
}

/**
 * Move, recaption, recolour or remove marks by number. Operations apply in order, all or nothing:
 * the first bad one throws and the record is unchanged. A move may turn a point into a box and back
 * (the number of coordinates decides); a box that becomes a point gets the default radius.
 */
export function applyUpdateArgs(
  record: VisionRecord,
  args: UpdateArgs,
  size: PictureSize
): { record: VisionRecord; changes: UpdateChange[] } {
  checkSize(size);
  if (args.ops.length === 0) {
    throw new VisionError('bad-args', 'vision_update: give at least one operation in "ops".');
  }
  const marks = new Map<number, Mark>(record.marks.map(mark => [mark.id, mark]));
  const changes: UpdateChange[] = [];
  args.ops.forEach((op, index) => {
    const where = `ops[${index}] (#${op.mark})`;
    const current = marks.get(op.mark);
    if (current === undefined) {
      const known = [...marks.keys()].map(id => `#${id}`).join(', ') || 'none';
      throw new VisionError(
        'unknown-mark',
        `${where}: there is no mark #${op.mark} on ${record.image}; marks now: ${known}.`
      );
    }
    const edits = op.at !== undefined || op.caption !== undefined || op.colour !== undefined;
    if (op.remove === true) {
      if (edits) {
        throw new VisionError(
          'bad-args',
          `${where}: remove cannot be combined with at, caption or colour.`
        );
      }
      marks.delete(op.mark);
      changes.push({ id: op.mark, removed: true });
      return;
    }
    if (!edits) {
      throw new VisionError(
        'bad-args',
        `${where}: nothing to change; give at, caption, colour or remove: true.`
      );
    }
    const caption = checkCaption(op.caption, where) ?? current.caption;
    const colour = checkColour(op.colour, where) ?? current.colour;
    let next: Mark;
    if (op.at === undefined) {
      next = { ...current, caption, colour };
    } else {
      const placement = placeAddress(op.at, size, where);
      const r = current.kind === 'point' ? current.r : defaultRadius(size);
      next = markAt(placement, current.id, r, caption, colour);
    }
    marks.set(op.mark, next);
    changes.push({ id: op.mark, removed: false, mark: next });
  });
  // Map iteration keeps insertion order, so surviving marks stay in their original order.
  return { record: { ...record, marks: [...marks.values()] }, changes };
}

/** A mark's extent in original pixels (a point's circle as its bounding square). */
export function markBounds(mark: Mark): { x0: number; y0: number; x1: number; y1: number } {
  return mark.kind === 'box'
    ? { x0: mark.x0, y0: mark.y0, x1: mark.x1, y1: mark.y1 }
    : { x0: mark.x - mark.r, y0: mark.y - mark.r, x1: mark.x + mark.r, y1: mark.y + mark.r };
}
