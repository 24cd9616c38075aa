/**
 * The figure server's routes on the wire: every route's request and answer as one zod schema, for
 * the server that parses requests and the browser that parses answers. Both ends import this file,
 * so a change to a route is a change here, checked by the compiler on both sides.
 *
 * `POST model` is not here: it forwards an OpenAI-compatible Chat Completions body and streams the
 * endpoint's answer back unchanged.
 */
import { z } from 'zod';

import { ViewSpec } from './vision/geometry';

/** Most views one `render` request may ask for. */
export const MAX_VIEWS_PER_REQUEST = 8;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** `GET version`. */
export const VersionAnswer = z.looseObject({ version: z.string() });
export type VersionAnswer = z.infer<typeof VersionAnswer>;

/** `POST check-svg`. */
export const CheckSvgRequest = z.object({ svg: z.string() });
export type CheckSvgRequest = z.infer<typeof CheckSvgRequest>;

/** A rejected figure is an answer (status 200), not a failure. */
export const CheckSvgAnswer = z.discriminatedUnion('ok', [
  z.looseObject({
    ok: z.literal(true),
    width: z.number(),
    height: z.number(),
    nodes: z.number().int()
  }),
  z.looseObject({
    ok: z.literal(false),
    error: z.looseObject({ kind: z.string(), message: z.string() })
  })
]);
export type CheckSvgAnswer = z.infer<typeof CheckSvgAnswer>;

/**
 * How a request names a picture: its address, and for a `cell:` picture its base64 bytes, which
 * may be left out when the server already holds the version `expectSha256` names (it answers 428
 * when it does not).
 */
export const PictureRequest = z.object({
  address: z.string().min(1),
  data: z.string().optional(),
  expectSha256: Sha256.optional()
});
export type PictureRequest = z.infer<typeof PictureRequest>;

/** `POST picture-info`: a picture's fingerprint and format (read from its header). */
export const PictureInfo = z.looseObject({
  address: z.string(),
  sha256: Sha256,
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  format: z.string()
});
export type PictureInfo = z.infer<typeof PictureInfo>;

/** `POST render`: views of a record over a picture (exactly one of `view` and `views`). */
export const RenderRequest = PictureRequest.extend({
  view: ViewSpec.optional(),
  views: z.array(ViewSpec).min(1).max(MAX_VIEWS_PER_REQUEST).optional(),
  record: z.unknown()
}).refine(body => (body.view === undefined) !== (body.views === undefined), {
  message: 'give exactly one of "view" or "views"'
});
export type RenderRequest = z.infer<typeof RenderRequest>;

/** One rendered view: a PNG (base64) with its size and caption. */
export const RenderedView = z.looseObject({
  png: z.string().regex(/^[A-Za-z0-9+/]*=*$/),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  caption: z.string()
});

/** `POST render`'s answer: the views, and the picture they were drawn over. */
export const RenderAnswer = z.looseObject({
  views: z.array(RenderedView).max(MAX_VIEWS_PER_REQUEST),
  picture: PictureInfo
});
export type RenderAnswer = z.infer<typeof RenderAnswer>;

/** Any route's error answer (a non-2xx status). */
export const ErrorAnswer = z.looseObject({
  error: z.looseObject({ message: z.string(), code: z.string().optional() })
});
export type ErrorAnswer = z.infer<typeof ErrorAnswer>;

/** Each JSON route's request and answer, by route name. */
export const ROUTES = {
  'check-svg': { request: CheckSvgRequest, answer: CheckSvgAnswer },
  'picture-info': { request: PictureRequest, answer: PictureInfo },
  render: { request: RenderRequest, answer: RenderAnswer }
} as const;
export type RouteName = keyof typeof ROUTES;
export type RouteRequest<R extends RouteName> = z.input<(typeof ROUTES)[R]['request']>;
export type RouteAnswer<R extends RouteName> = z.infer<(typeof ROUTES)[R]['answer']>;

/** Each route's answer schema, typed per route (for clients checking answers). */
export const ANSWERS: { readonly [R in RouteName]: z.ZodType<RouteAnswer<R>> } = {
  'check-svg': CheckSvgAnswer,
  'picture-info': PictureInfo,
  render: RenderAnswer
};
