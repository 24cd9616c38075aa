/**
 * Checking a record that arrives from elsewhere (the browser, a saved notebook) before it is drawn:
 * the same bounds, colour and radius rules as the two functions that build records.
 */
import { z } from 'zod';

import { MAX_POLYGON_VERTICES, PALETTE } from './address';
import { VisionError } from './errors';
import { checkClasses, MAX_CLASS_LENGTH, MAX_CLASSES } from './classes';
import { markAddress, placeAddress, type PictureSize, type VisionRecord } from './marks';
import { MAX_CAPTION_LENGTH, MAX_MARKS, maxRadius } from './record';

const id = z.number().int().positive();
const coordinate = z.number().int();
const common = {
  id,
  caption: z.string().max(MAX_CAPTION_LENGTH),
  colour: z.enum(PALETTE),
  label: z.string().max(MAX_CLASS_LENGTH).optional()
};

/** The shape of a {@link VisionRecord} as JSON. */
export const VisionRecordSchema = z.strictObject({
  image: z.string().min(1),
  classes: z.array(z.string().max(MAX_CLASS_LENGTH)).max(MAX_CLASSES).optional(),
  lastId: z.number().int().nonnegative(),
  marks: z
    .array(
      z.discriminatedUnion('kind', [
        z.strictObject({
          kind: z.literal('point'),
          x: coordinate,
          y: coordinate,
          r: z.number().int().positive(),
          ...common
        }),
        z.strictObject({
          kind: z.literal('box'),
          x0: coordinate,
          y0: coordinate,
          x1: coordinate,
          y1: coordinate,
          ...common
        }),
        z.strictObject({
          kind: z.literal('polygon'),
          points: z
            .array(z.tuple([coordinate, coordinate]))
            .min(3)
            .max(MAX_POLYGON_VERTICES),
          ...common
        })
      ])
    )
    .max(MAX_MARKS)
});

/**
 * Parse a record and check every mark against the picture, throwing a {@link VisionError} naming
 * the first problem; a record that passes is one `applyMarkArgs`/`applyUpdateArgs` could have made.
 */
export function validateRecord(value: unknown, size: PictureSize): VisionRecord {
  const parsed = VisionRecordSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new VisionError(
      'bad-args',
      `record: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}.`
    );
  }
  const record = parsed.data;
  if (record.classes !== undefined) {
    checkClasses(record.classes, 'record classes');
  }
  const seen = new Set<number>();
  for (const mark of record.marks) {
    const where = `record mark #${mark.id}`;
    if (seen.has(mark.id) || mark.id > record.lastId) {
      throw new VisionError(
        'bad-args',
        `${where}: numbers must be unique and at most lastId ${record.lastId}.`
      );
    }
    seen.add(mark.id);
    placeAddress(markAddress(mark), size, where);
    if (mark.kind === 'point' && mark.r > maxRadius(size)) {
      throw new VisionError('bad-radius', `${where}: r ${mark.r} is larger than the picture.`);
    }
    if (mark.label !== undefined && !record.classes?.includes(mark.label)) {
      throw new VisionError(
        'bad-label',
        `${where}: label "${mark.label}" is not one of the record's classes (${record.classes?.join(', ') ?? 'none'}).`
      );
    }
  }
  return record;
}
