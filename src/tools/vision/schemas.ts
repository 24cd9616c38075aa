/**
 * Input schemas of the four vision tools (SPEC 4.2), with the descriptions the model reads.
 *
 * Objects are strict: an unknown key (`label` for `caption`, say) is refused with its name rather
 * than dropped, so the model learns the right spelling instead of losing its caption silently.
 */
import { z } from 'zod';

import { MAX_POLYGON_VERTICES, PALETTE } from './address';
import { MAX_SHEET_TILES } from './geometry';
import { MAX_CLASS_LENGTH } from './classes';
import { MAX_CAPTION_LENGTH } from './record';

/*
 * Every array a model may send has a named maximum, so one call cannot make a result text, a
 * record or a view out of proportion (10 000 update operations made a 390 KB result bound for
 * the notebook). Larger jobs take several calls.
 */

/** Most marks one `vision_mark` call adds. */
export const MAX_MARKS_PER_CALL = 100;

/** Most operations one `vision_update` call applies. */
export const MAX_UPDATE_OPS = 100;

/** Most addresses one `vision_show` call looks at: the tiles of one sheet. */
export const MAX_SHOW_ADDRESSES = MAX_SHEET_TILES;

/** Most colours one `cover` names: each palette colour once. */
export const MAX_COVER_COLOURS = PALETTE.length;

const imageField = z
  .string()
  .min(1)
  .optional()
  .describe(
    'Picture: a workspace path relative to the Jupyter root, or cell:<cell-id>/<output-index> for a notebook image output. Omit to use the picture last used in the conversation.'
  );

const colourField = z.enum(PALETTE).describe('Mark colour from the fixed palette.');

/** Longest address text: a polygon of the most vertices with nine-digit coordinates and spaces. */
const MAX_ADDRESS_LENGTH = MAX_POLYGON_VERTICES * 2 * 12;

const positionField = z
  .string()
  .max(MAX_ADDRESS_LENGTH)
  .describe(
    `"x,y" for a point, "x0,y0,x1,y1" for a box, or "x0,y0,x1,y1,x2,y2,…" (3 to ${MAX_POLYGON_VERTICES} vertices) for a polygon, in whole original-picture pixels.`
  );

const labelField = z
  .string()
  .max(MAX_CLASS_LENGTH)
  .describe(
    "Class of the mark: one of the picture's classes (vision_list and notebook_read name them). Without a colour, the mark gets its class's colour."
  );

/** The names of the vision tools. */
export const VISION_TOOL_NAMES = [
  'vision_mark',
  'vision_update',
  'vision_show',
  'vision_list'
] as const;

/** A vision tool name. */
export type VisionToolName = (typeof VISION_TOOL_NAMES)[number];

/** Whether a tool name is one of the vision tools. */
export function isVisionTool(name: string): name is VisionToolName {
  return (VISION_TOOL_NAMES as readonly string[]).includes(name);
}

/** `vision_mark` arguments. */
export const VisionMarkInput = z.strictObject({
  image: imageField,
  marks: z
    .array(
      z.strictObject({
        at: positionField,
        r: z
          .number()
          .int()
          .optional()
          .describe(
            'Point radius in original pixels (points only; default 2 % of the shorter side).'
          ),
        caption: z
          .string()
          .max(MAX_CAPTION_LENGTH)
          .optional()
          .describe('Short text kept with the mark.'),
        colour: colourField.optional(),
        label: labelField.optional()
      })
    )
    .min(1)
    .max(MAX_MARKS_PER_CALL, {
      message: `at most ${MAX_MARKS_PER_CALL} marks per call; add the rest in further vision_mark calls`
    })
    .describe('Marks to add, numbered in the order given after the highest number used so far.'),
  view: z
    .enum(['map', 'marks', 'none'])
    .optional()
    .describe(
      'View returned: map (whole picture, default), marks (close to the new marks) or none.'
    )
});
export type VisionMarkInput = z.infer<typeof VisionMarkInput>;

/** `vision_update` arguments. */
export const VisionUpdateInput = z.strictObject({
  image: imageField,
  ops: z
    .array(
      z.strictObject({
        mark: z.number().int().positive().describe('Number of the mark to change.'),
        at: positionField
          .optional()
          .describe(
            'Move to "x,y" (point), "x0,y0,x1,y1" (box) or "x0,y0,x1,y1,x2,y2,…" (polygon).'
          ),
        caption: z.string().max(MAX_CAPTION_LENGTH).optional(),
        colour: colourField.optional(),
        label: labelField
          .optional()
          .describe('New class (one of the picture\'s classes), or "" to take the label off.'),
        remove: z.literal(true).optional().describe('Remove the mark (its number is not reused).')
      })
    )
    .min(1)
    .max(MAX_UPDATE_OPS, {
      message: `at most ${MAX_UPDATE_OPS} operations per call; apply the rest in further vision_update calls`
    })
    .describe('Operations applied in order, all or nothing.')
});
export type VisionUpdateInput = z.infer<typeof VisionUpdateInput>;

/** `vision_show` arguments. */
export const VisionShowInput = z.strictObject({
  image: imageField,
  at: z
    .array(z.string().max(100))
    .max(MAX_SHOW_ADDRESSES, {
      message: `at most ${MAX_SHOW_ADDRESSES} addresses per call (one sheet); show the rest in another call`
    })
    .optional()
    .describe(
      'Nothing: the whole picture. One address ("#17", "640,480", "120,240,360,520" or a polygon\'s vertices): a close-up with a crosshair on it. Several: a sheet of close-ups.'
    ),
  cover: z
    .array(z.enum(PALETTE))
    .max(MAX_COVER_COLOURS, { message: 'name each colour once' })
    .optional()
    .describe('Paint out the marks of these colours, hiding what lies under them.')
});
export type VisionShowInput = z.infer<typeof VisionShowInput>;

/** `vision_list` arguments. */
export const VisionListInput = z.strictObject({ image: imageField });
export type VisionListInput = z.infer<typeof VisionListInput>;

/** Schema per tool name. */
export const VISION_SCHEMAS = {
  vision_mark: VisionMarkInput,
  vision_update: VisionUpdateInput,
  vision_show: VisionShowInput,
  vision_list: VisionListInput
} as const;

/** What each tool tells the model it does. */
export const VISION_DESCRIPTIONS: Readonly<Record<VisionToolName, string>> = {
  vision_mark:
    'Put numbered marks (points, boxes or polygons) on a picture and look at the result. Coordinates are whole pixels of the original picture; views frame the picture with rulers in a margin, labelled in those coordinates. When the picture has a class list, give each mark a label from it.',
  vision_update:
    'Move, reshape, recaption, recolour, relabel or remove marks by number; many operations per call, applied all or nothing.',
  vision_show:
    'Look at a picture: the whole picture with its marks, a close-up of one address with a crosshair on it, or a sheet of close-ups. cover paints marks of the given colours out.',
  vision_list:
    "List a picture's marks as text, one line per mark, and its class list if it has one."
};
