/**
 * The Figure Chat output bundle: what a notebook output carries under
 * `application/vnd.figure-chat.figure+json` (SPEC 10). One definition for everything that writes
 * one (the chat's "Insert into notebook", the Python `Figure` and `Vision`, the widget) and
 * everything that reads one (the MIME renderer, `notebook_read`, `figure-chat render`).
 *
 * The bundle is the source of truth; the output's other MIME entries are fallbacks for readers
 * without this extension (GitHub, nbviewer, nbconvert):
 * - `image/png`: the rendered figure or view;
 * - `text/plain`: the figure's alt text, or the mark list;
 * - `image/svg+xml` (figures only): the SVG itself. A figure bundle does not repeat the SVG: the
 *   renderer reads it from this sibling entry, so a pinned figure stores its SVG once.
 *
 * Like the transcript, a bundle is input from whoever wrote the notebook: readers parse it with
 * {@link parseOutputBundle}, re-check the SVG and re-fold the marks, and never execute anything.
 */
import { z } from 'zod';

import { PictureFingerprint } from './transcript';

/** The output MIME type of a Figure Chat figure or vision view. */
export const FIGURE_MIME = 'application/vnd.figure-chat.figure+json';

/** Version of the bundle format; readers refuse a bundle of another version with a notice. */
export const BUNDLE_VERSION = 1;

/** Most marks one bundle may carry (the same bound as a vision record's). */
export const MAX_BUNDLE_MARKS = 1000;

/** Most mark addresses a `show` view may list. */
export const MAX_BUNDLE_SHOW_ADDRESSES = 64;

/** Where a pinned output came from: the chat call it was inserted from. */
export const BundleSource = z
  .looseObject({
    /** The assistant message that made the call. */
    message: z.string().max(200),
    /** The tool call's id. */
    call: z.string().max(200)
  })
  .describe('The chat tool call this output was inserted from.');
export type BundleSource = z.infer<typeof BundleSource>;

/** A stored mark, as in a vision record (integer original-pixel coordinates). */
const BundleMark = z.discriminatedUnion('kind', [
  z.looseObject({
    id: z.number().int().positive(),
    kind: z.literal('point'),
    x: z.number().int(),
    y: z.number().int(),
    r: z.number().int().positive(),
    caption: z.string().max(2000),
    colour: z.string().max(20)
  }),
  z.looseObject({
    id: z.number().int().positive(),
    kind: z.literal('box'),
    x0: z.number().int(),
    y0: z.number().int(),
    x1: z.number().int(),
    y1: z.number().int(),
    caption: z.string().max(2000),
    colour: z.string().max(20)
  }),
  z.looseObject({
    id: z.number().int().positive(),
    kind: z.literal('polygon'),
    points: z.array(z.tuple([z.number().int(), z.number().int()])).max(1000),
    caption: z.string().max(2000),
    colour: z.string().max(20)
  })
]);

/** Which view of the picture the output shows. */
export const BundleView = z.discriminatedUnion('kind', [
  /** The whole picture with every mark (the map). */
  z.looseObject({ kind: z.literal('map') }),
  /** The whole picture with only the listed marks (`vision_mark` with `view: "marks"`). */
  z.looseObject({
    kind: z.literal('marks'),
    ids: z.array(z.number().int().positive()).max(MAX_BUNDLE_MARKS)
  }),
  /** `vision_show`'s close-up (one address) or sheet (several), with optional `cover`. */
  z.looseObject({
    kind: z.literal('show'),
    at: z.array(z.string().max(100)).max(MAX_BUNDLE_SHOW_ADDRESSES),
    cover: z.array(z.string().max(20)).max(8).optional()
  })
]);
export type BundleView = z.infer<typeof BundleView>;

/** A static SVG figure; the SVG is the output's `image/svg+xml` entry. */
export const FigureBundle = z.looseObject({
  version: z.literal(BUNDLE_VERSION),
  kind: z.literal('figure'),
  alt: z.string().min(1).max(2000),
  source: BundleSource.optional()
});
export type FigureBundle = z.infer<typeof FigureBundle>;

/** Most pictures a set's bundle lists (Python's `MAX_SET_PICTURES`). */
export const MAX_BUNDLE_SET_PICTURES = 100_000;

/** One picture of a `VisionSet`: where it is, how far it is labelled, and its marks if any. */
const BundleSetPicture = z.looseObject({
  name: z.string().max(4096),
  address: z.string().min(1).max(4096),
  status: z.enum(['new', 'submitted', 'skipped']),
  /** Known once the kernel has read the picture; without it the chat cannot draw it yet. */
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  /** The picture's record when it has marks and is not the one shown (that one is `record`). */
  record: z.record(z.string(), z.unknown()).optional()
});
export type BundleSetPicture = z.infer<typeof BundleSetPicture>;

/** A `VisionSet`'s pictures, in the bundle of the picture it shows. */
const BundleSet = z.looseObject({
  index: z.number().int().nonnegative(),
  count: z.number().int().positive(),
  labelled: z.number().int().nonnegative(),
  pictures: z.array(BundleSetPicture).max(MAX_BUNDLE_SET_PICTURES)
});
export type BundleSet = z.infer<typeof BundleSet>;

/** A marked picture: the record, the picture's fingerprint, and the view shown. */
export const VisionBundle = z.looseObject({
  version: z.literal(BUNDLE_VERSION),
  kind: z.literal('vision'),
  picture: PictureFingerprint,
  record: z.looseObject({
    image: z.string().max(4096),
    classes: z.array(z.string().max(200)).max(1000).optional(),
    marks: z.array(BundleMark).max(MAX_BUNDLE_MARKS)
  }),
  view: BundleView,
  source: BundleSource.optional(),
  /** Present on a `VisionSet`'s output: every picture of the set. */
  set: BundleSet.optional()
});
export type VisionBundle = z.infer<typeof VisionBundle>;

/** Any Figure Chat output bundle. */
export const OutputBundle = z.discriminatedUnion('kind', [FigureBundle, VisionBundle]);
export type OutputBundle = z.infer<typeof OutputBundle>;

/** A parse result: the bundle, or a message a person can act on. */
export type BundleResult = { ok: true; value: OutputBundle } | { ok: false; error: string };

/** Parse an output's `application/vnd.figure-chat.figure+json` value; never throws. */
export function parseOutputBundle(value: unknown): BundleResult {
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version !== BUNDLE_VERSION) {
    return {
      ok: false,
      error: `this output was written by Figure Chat bundle format ${version}; this version reads format ${BUNDLE_VERSION}. Update jupyterlab-figure-chat to show it.`
    };
  }
  const parsed = OutputBundle.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first?.path.length ? first.path.join('.') : 'bundle';
    return { ok: false, error: `unreadable Figure Chat output (${where}: ${first?.message})` };
  }
  return { ok: true, value: parsed.data };
}
