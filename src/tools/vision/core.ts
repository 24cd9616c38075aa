/**
 * What one vision call means: validate its arguments, change the record (through the two pure
 * functions in `record`), and choose the views to render. Used live and on replay alike.
 */
import type { z } from 'zod';

import { VisionError } from './errors';
import { describeView } from './draw';
import { viewGeometry, type ViewSpec } from './geometry';
import { markAddress, markBounds, type Mark, type PictureSize, type VisionRecord } from './marks';
import { applyMarkArgs, applyUpdateArgs } from './record';
import { VISION_SCHEMAS, type VisionToolName } from './schemas';

/** The outcome of one call: the record after it, the text the model reads, the views to render. */
export interface VisionPlan {
  readonly record: VisionRecord;
  readonly text: string;
  readonly views: readonly ViewSpec[];
}

/** Turn zod's issues into one sentence naming where each problem is. */
function issuesText(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map(issue => `${issue.path.length ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
}

/** Validate a vision tool's arguments, throwing a `bad-args` {@link VisionError} naming the fields. */
export function parseVisionArgs<N extends VisionToolName>(
  name: N,
  args: unknown
): z.infer<(typeof VISION_SCHEMAS)[N]> {
  const parsed = VISION_SCHEMAS[name].safeParse(args);
  if (!parsed.success) {
    throw new VisionError('bad-args', `${name}: ${issuesText(parsed.error)}.`);
  }
  return parsed.data as z.infer<(typeof VISION_SCHEMAS)[N]>;
}

/**
 * A mark as one line of text: `#2 box 120,240,360,520 green "door"`, with its class when it has
 * one: `#3 polygon 10,10,90,10,50,80 red label "apple"`. The address is the one the tools take
 * back, so the model can copy it into `vision_update`.
 */
export function describeMark(mark: Mark): string {
  if (mark.kind === 'polygon' && mark.points.length > MAX_LISTED_VERTICES) {
    // A traced outline of 200 vertices is 1.6 kB of numbers per line; its extent says where it is.
    const b = markBounds(mark);
    return describeRest(
      mark,
      `#${mark.id} polygon of ${mark.points.length} vertices within ${b.x0},${b.y0},${b.x1},${b.y1}`
    );
  }
  const where =
    mark.kind === 'point'
      ? `point ${markAddress(mark)} r ${mark.r}`
      : `${mark.kind} ${markAddress(mark)}`;
  return describeRest(mark, `#${mark.id} ${where}`);
}

/** Most polygon vertices a mark's line spells out; larger polygons are told by their extent. */
export const MAX_LISTED_VERTICES = 32;

function describeRest(mark: Mark, head: string): string {
  const label = mark.label === undefined ? '' : ` label ${JSON.stringify(mark.label)}`;
  const caption = mark.caption ? ` ${JSON.stringify(mark.caption)}` : '';
  return `${head} ${mark.colour}${label}${caption}`;
}

/** A record's class list as the model reads it: `classes: "apple", "pear"`, or nothing. */
export function describeClasses(record: VisionRecord): string {
  return record.classes?.length
    ? `classes: ${record.classes.map(name => JSON.stringify(name)).join(', ')}`
    : '';
}

function countText(record: VisionRecord): string {
  const count = record.marks.length;
  return `${record.image} now has ${count} mark${count === 1 ? '' : 's'}.`;
}

function checkViews(views: ViewSpec[], record: VisionRecord, size: PictureSize): string[] {
  // Resolving each view now reports a bad address to the model before anything is rendered.
  return views.map(view => describeView(viewGeometry(view, record, size), record, size));
}

/**
 * Plan one vision call on the record of its picture. Throws a {@link VisionError} for bad
 * arguments; the record passed in is never changed.
 */
export function planVisionCall(
  name: VisionToolName,
  args: unknown,
  record: VisionRecord,
  size: PictureSize
): VisionPlan {
  switch (name) {
    case 'vision_mark': {
      const parsed = parseVisionArgs(name, args);
      const { record: next, added } = applyMarkArgs(record, parsed, size);
      const view = parsed.view ?? 'map';
      const views: ViewSpec[] =
        view === 'none'
          ? []
          : view === 'map'
            ? [{ kind: 'map' }]
            : [{ kind: 'marks', ids: added.map(m => m.id) }];
      checkViews(views, next, size);
      return {
        record: next,
        text: `Added ${added.map(describeMark).join('; ')}. ${countText(next)}`,
        views
      };
    }
    case 'vision_update': {
      const parsed = parseVisionArgs(name, args);
      const { record: next, changes } = applyUpdateArgs(record, parsed, size);
      const lines = changes.map(change =>
        change.removed || !change.mark
          ? `removed #${change.id}`
          : `now ${describeMark(change.mark)}`
      );
      const views: ViewSpec[] = [{ kind: 'map' }];
      checkViews(views, next, size);
      return { record: next, text: `Updated: ${lines.join('; ')}. ${countText(next)}`, views };
    }
    case 'vision_show': {
      const parsed = parseVisionArgs(name, args);
      const at = parsed.at ?? [];
      const cover = parsed.cover?.length ? { cover: parsed.cover } : {};
      const view: ViewSpec =
        at.length === 0
          ? { kind: 'map', ...cover }
          : at.length === 1
            ? { kind: 'closeup', at: at[0], ...cover }
            : { kind: 'sheet', at, ...cover };
      const [text] = checkViews([view], record, size);
      return { record, text: `${text}.`, views: [view] };
    }
    case 'vision_list': {
      parseVisionArgs(name, args);
      const classes = describeClasses(record);
      const head = `${record.image} (${size.width}×${size.height})${classes ? `; ${classes}` : ''}: ${record.marks.length} mark${record.marks.length === 1 ? '' : 's'}`;
      const lines = record.marks.map(describeMark);
      return { record, text: [head + (lines.length ? ':' : '.'), ...lines].join('\n'), views: [] };
    }
  }
}
