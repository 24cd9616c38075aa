/**
 * The mark record of one picture, and the only two functions that change it.
 *
 * Both functions are pure and throw a {@link VisionError} on bad input instead of repairing it: a
 * record that silently absorbed a malformed mark would be wrong invisibly, and the same functions
 * run live and on replay (the fold), so a rebuilt record is the record the model worked with.
 */
import { classColour, isColour, type Colour } from './address';
import { checkLabel } from './classes';
import { VisionError } from './errors';
import {
  placeAddress,
  placementOf,
  type Mark,
  type PictureSize,
  type Placement,
  type VisionRecord
} from './marks';

/** One mark as `vision_mark` asks for it. */
export interface MarkArg {
  readonly at: string;
  readonly r?: number;
  readonly caption?: string;
  readonly colour?: string;
  readonly label?: string;
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
  /** A class of the record, or `""` to take the label off. */
  readonly label?: string;
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
export function emptyRecord(image: string, classes?: readonly string[]): VisionRecord {
  return classes ? { image, classes, marks: [], lastId: 0 } : { image, marks: [], lastId: 0 };
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

function markAt(
  placement: Placement,
  id: number,
  r: number,
  caption: string,
  colour: Colour,
  label: string | undefined
): Mark {
  // Only a labelled mark carries the key, so records without classes read exactly as before.
  const labelled = label === undefined ? {} : { label };
  switch (placement.kind) {
    case 'point':
      return { id, kind: 'point', x: placement.x, y: placement.y, r, caption, colour, ...labelled };
    case 'box':
      return {
        id,
        kind: 'box',
        x0: placement.x0,
        y0: placement.y0,
        x1: placement.x1,
        y1: placement.y1,
        caption,
        colour,
        ...labelled
      };
    case 'polygon':
      return { id, kind: 'polygon', points: placement.points, caption, colour, ...labelled };
  }
}

/**
 * A mark's colour: the one named, else its class's colour, else the default. A class colour
 * makes the classes tell apart at a glance in every view.
 */
function colourFor(
  named: Colour | undefined,
  label: string | undefined,
  classes: readonly string[] | undefined
): Colour {
  return named ?? (label === undefined ? DEFAULT_COLOUR : classColour(classes, label));
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
    if (placement.kind !== 'point' && arg.r !== undefined) {
      throw new VisionError(
        'bad-radius',
        `${where}: r applies to points only; drop it for a ${placement.kind}.`
      );
    }
    const r = arg.r === undefined ? defaultRadius(size) : checkRadius(arg.r, size, where);
    const caption = checkCaption(arg.caption, where) ?? '';
    const label = checkLabel(arg.label, record.classes, where);
    const colour = colourFor(checkColour(arg.colour, where), label, record.classes);
    return markAt(placement, record.lastId + 1 + index, r, caption, colour, label);
  });
  return {
    record: {
      ...record,
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
 * Move, recaption, recolour, relabel or remove marks by number. Operations apply in order, all or
 * nothing: the first bad one throws and the record is unchanged. A move may turn a mark into
 * another kind (the number of coordinates decides); a mark that becomes a point gets the default
 * radius. A new label without a colour gives the mark its class's colour; `label: ""` takes the
 * label off.
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
    const edits =
      op.at !== undefined ||
      op.caption !== undefined ||
      op.colour !== undefined ||
      op.label !== undefined;
    if (op.remove === true) {
      if (edits) {
        throw new VisionError(
          'bad-args',
          `${where}: remove cannot be combined with at, caption, colour or label.`
        );
      }
      marks.delete(op.mark);
      changes.push({ id: op.mark, removed: true });
      return;
    }
    if (!edits) {
      throw new VisionError(
        'bad-args',
        `${where}: nothing to change; give at, caption, colour, label or remove: true.`
      );
    }
    const caption = checkCaption(op.caption, where) ?? current.caption;
    const label =
      op.label === undefined
        ? current.label
        : op.label === ''
          ? undefined
          : checkLabel(op.label, record.classes, where);
    const named = checkColour(op.colour, where);
    const colour = named ?? (op.label ? classColour(record.classes, op.label) : current.colour);
    const placement: Placement =
      op.at === undefined ? placementOf(current) : placeAddress(op.at, size, where);
    const r = current.kind === 'point' ? current.r : defaultRadius(size);
    const next = markAt(placement, current.id, r, caption, colour, label);
    marks.set(op.mark, next);
    changes.push({ id: op.mark, removed: false, mark: next });
  });
  // Map iteration keeps insertion order, so surviving marks stay in their original order.
  return { record: { ...record, marks: [...marks.values()] }, changes };
}
