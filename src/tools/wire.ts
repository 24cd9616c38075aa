/**
 * The figure server's routes on the wire: every route's request and answer as one zod schema, for
 * the server that parses requests and the browser that parses answers. Both ends import this file,
 * so a change to a route is a change here, checked by the compiler on both sides.
 *
 * `POST model` is not here: it forwards an OpenAI-compatible Chat Completions body and streams the
 * endpoint's answer back unchanged.
 */
import { z } from 'zod';

import { SVG_MAX_SIDE } from './svg/limits';
import { ViewSpec } from './vision/geometry';

/** Most views one `render` request may ask for. */
export const MAX_VIEWS_PER_REQUEST = 8;

/** Narrowest width a view may be asked for at (`RenderRequest.width`). */
export const MIN_DISPLAY_WIDTH = 64;

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

/** Largest device pixel ratio `render-figure` draws at (phones and 4K screens reach 3). */
export const MAX_FIGURE_PIXEL_RATIO = 3;

/**
 * `POST render-figure`: a figure drawn by the figure server, `width` CSS pixels wide (at most its
 * own width) at the device's pixel ratio. The server checks the SVG again with the same policy; a
 * refused figure is a 422. The answer is the PNG's bytes (`BINARY_CONTENT_TYPE`).
 */
export const RenderFigureRequest = z.object({
  svg: z.string(),
  width: z.number().int().min(1).max(SVG_MAX_SIDE),
  ratio: z.number().min(0.25).max(MAX_FIGURE_PIXEL_RATIO)
});
export type RenderFigureRequest = z.infer<typeof RenderFigureRequest>;

/** A PNG file's first eight bytes. */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** `render-figure`'s answer: PNG bytes, checked by their signature. */
export const RenderFigureAnswer = z.custom<Uint8Array>(
  value =>
    value instanceof Uint8Array &&
    value.length > PNG_SIGNATURE.length &&
    PNG_SIGNATURE.every((byte, i) => value[i] === byte),
  'expected the bytes of a PNG'
);
export type RenderFigureAnswer = z.infer<typeof RenderFigureAnswer>;

/**
 * How a request names a picture: its address, and for a `cell:` picture its base64 bytes, which
 * may be left out when the server already holds the version `expectSha256` names (it answers 428
 * when it does not). `cachedBytes` does the same for any address (a Vision output's picture, whose
 * bytes come from the kernel): the caller has checked that its bytes have `expectSha256`, sends
 * none, and the server draws from the bytes it holds by that hash, never from a workspace file.
 */
export const PictureRequest = z.object({
  address: z.string().min(1),
  data: z.string().optional(),
  expectSha256: Sha256.optional(),
  cachedBytes: z.literal(true).optional()
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
  record: z.unknown(),
  /**
   * `binary` asks for the compact answer ({@link encodeRenderAnswer}) that the browser's client
   * reads; `json` (the default) keeps base64 PNGs in JSON for scripts and `curl`.
   */
  answer: z.enum(['json', 'binary']).optional(),
  /**
   * Also encode each view for a vision request ({@link ModelImage}): the chat shows people the PNG
   * and sends the model the compact copy, drawn from the same pixels in one render.
   */
  model: z.boolean().optional(),
  /** The views are in the chat's visible area: drawn before views queued for off-screen cards. */
  visible: z.boolean().optional(),
  /**
   * Draw each view wider than this many pixels at this width (its height in proportion), for
   * display: the chat shows views at the sidebar's width. The same picture as the full view
   * shrunk, at a fraction of the work and bytes; the answer gives the full size as `shrunkFrom`.
   * Model copies are always full size.
   */
  width: z.number().int().min(MIN_DISPLAY_WIDTH).max(4096).optional()
}).refine(body => (body.view === undefined) !== (body.views === undefined), {
  message: 'give exactly one of "view" or "views"'
});
export type RenderRequest = z.infer<typeof RenderRequest>;

const Base64 = z.string().regex(/^[A-Za-z0-9+/]*=*$/);

/** Media types of a view's copy for the model. */
export const MODEL_IMAGE_MIMES = ['image/jpeg'] as const;
export type ModelImageMime = (typeof MODEL_IMAGE_MIMES)[number];

/**
 * A view encoded for the model (base64): lossy but with every mark's number legible, a fraction of
 * the PNG's bytes, which a local model server would otherwise parse as JSON on every request.
 */
export const ModelImage = z.looseObject({ mime: z.enum(MODEL_IMAGE_MIMES), data: Base64 });
export type ModelImage = z.infer<typeof ModelImage>;

const Size = z.looseObject({
  width: z.number().int().positive(),
  height: z.number().int().positive()
});

/**
 * One rendered view: a PNG (base64) with its size and caption, its model copy if asked, and the
 * view's own size when the PNG is the view drawn smaller for display (`RenderRequest.width`).
 */
export const RenderedView = z.looseObject({
  png: Base64,
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  caption: z.string(),
  model: ModelImage.optional(),
  shrunkFrom: Size.optional()
});

/** `POST render`'s answer: the views, and the picture they were drawn over. */
export const RenderAnswer = z.looseObject({
  views: z.array(RenderedView).max(MAX_VIEWS_PER_REQUEST),
  picture: PictureInfo
});
export type RenderAnswer = z.infer<typeof RenderAnswer>;

/** `application/octet-stream`: the content type of a binary `render` answer. */
export const BINARY_CONTENT_TYPE = 'application/octet-stream';

/** The first bytes of a binary `render` answer ("FCR" and the format's version, 1). */
const BINARY_MAGIC = [0x46, 0x43, 0x52, 0x01];

/** The first bytes of each model copy's format. */
const MODEL_SIGNATURES: Record<ModelImageMime, readonly number[]> = {
  'image/jpeg': [0xff, 0xd8, 0xff]
};

/** Largest JSON header a binary answer may carry (captions of eight views and a picture). */
const MAX_BINARY_HEADER_BYTES = 1024 * 1024;

/**
 * The JSON header of a binary `render` answer: each view's size, caption and PNG byte count, and
 * its model copy's type and byte count when there is one.
 */
const BinaryHeader = z.looseObject({
  views: z
    .array(
      RenderedView.omit({ png: true, model: true }).extend({
        pngBytes: z.number().int().positive(),
        model: z
          .looseObject({ mime: z.enum(MODEL_IMAGE_MIMES), bytes: z.number().int().positive() })
          .optional()
      })
    )
    .max(MAX_VIEWS_PER_REQUEST),
  picture: PictureInfo
});
type BinaryHeader = z.infer<typeof BinaryHeader>;

/** A view as the server holds it: PNG bytes, not base64, and its model copy's bytes if asked. */
export interface RenderedViewBytes {
  readonly png: Uint8Array;
  readonly width: number;
  readonly height: number;
  readonly caption: string;
  readonly model?: { readonly mime: ModelImageMime; readonly bytes: Uint8Array };
  readonly shrunkFrom?: { readonly width: number; readonly height: number };
}

/** A binary `render` answer that cannot be read: a server of another version, or a cut answer. */
export class WireFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

/**
 * `render`'s binary answer: the 4 magic bytes, the JSON header's length (uint32, big-endian), the
 * header (UTF-8 JSON: each view's width, height, caption, `pngBytes` and `model` type and byte
 * count, then the picture), then each view's PNG bytes followed by its model copy's, in order.
 * Images are a third smaller than in base64 and never pass through a JSON parser. Plain
 * `Uint8Array`s so that the server and the browser share this code.
 */
export function encodeRenderAnswer(
  views: readonly RenderedViewBytes[],
  picture: PictureInfo
): Uint8Array {
  const header: BinaryHeader = {
    views: views.map(({ width, height, caption, png, model, shrunkFrom }) => ({
      width,
      height,
      caption,
      pngBytes: png.length,
      ...(model ? { model: { mime: model.mime, bytes: model.bytes.length } } : {}),
      ...(shrunkFrom ? { shrunkFrom: { width: shrunkFrom.width, height: shrunkFrom.height } } : {})
    })),
    picture
  };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const parts = views.flatMap(view => (view.model ? [view.png, view.model.bytes] : [view.png]));
  const total = 8 + headerBytes.length + parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(total);
  out.set(BINARY_MAGIC, 0);
  new DataView(out.buffer).setUint32(4, headerBytes.length);
  out.set(headerBytes, 8);
  let offset = 8 + headerBytes.length;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function startsWith(bytes: Uint8Array, offset: number, prefix: readonly number[]): boolean {
  return prefix.every((byte, i) => bytes[offset + i] === byte);
}

/**
 * Read a binary `render` answer; every length is checked against the bytes received, so a cut or
 * foreign answer is a {@link WireFormatError}, never a wrong picture.
 */
export function decodeRenderAnswer(bytes: Uint8Array): {
  views: RenderedViewBytes[];
  picture: PictureInfo;
} {
  if (bytes.length < 8 || !startsWith(bytes, 0, BINARY_MAGIC)) {
    throw new WireFormatError('not a binary render answer (its first bytes are wrong)');
  }
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4);
  if (headerLength > MAX_BINARY_HEADER_BYTES || 8 + headerLength > bytes.length) {
    throw new WireFormatError(`header length ${headerLength} does not fit the answer`);
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  } catch {
    throw new WireFormatError('the header is not JSON');
  }
  const parsed = BinaryHeader.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WireFormatError(`header ${issue?.path.join('.') ?? ''}: ${issue?.message}`);
  }
  let offset = 8 + headerLength;
  const views = parsed.data.views.map((header, index) => {
    const { pngBytes, width, height, caption, model } = header;
    const png = bytes.subarray(offset, offset + pngBytes);
    if (png.length !== pngBytes || !startsWith(png, 0, PNG_SIGNATURE)) {
      throw new WireFormatError(`view ${index + 1} is not a whole PNG`);
    }
    offset += pngBytes;
    const shrunkFrom = header.shrunkFrom && {
      width: header.shrunkFrom.width,
      height: header.shrunkFrom.height
    };
    if (!model) {
      return { png, width, height, caption, ...(shrunkFrom ? { shrunkFrom } : {}) };
    }
    const copy = bytes.subarray(offset, offset + model.bytes);
    if (copy.length !== model.bytes || !startsWith(copy, 0, MODEL_SIGNATURES[model.mime])) {
      throw new WireFormatError(`view ${index + 1}'s model copy is not a whole ${model.mime}`);
    }
    offset += model.bytes;
    return {
      png,
      width,
      height,
      caption,
      model: { mime: model.mime, bytes: copy },
      ...(shrunkFrom ? { shrunkFrom } : {})
    };
  });
  if (offset !== bytes.length) {
    throw new WireFormatError(`${bytes.length - offset} bytes follow the last view`);
  }
  return { views, picture: parsed.data.picture };
}

/** Any route's error answer (a non-2xx status). */
export const ErrorAnswer = z.looseObject({
  error: z.looseObject({ message: z.string(), code: z.string().optional() })
});
export type ErrorAnswer = z.infer<typeof ErrorAnswer>;

/** Each JSON route's request and answer, by route name. */
export const ROUTES = {
  'check-svg': { request: CheckSvgRequest, answer: CheckSvgAnswer },
  'picture-info': { request: PictureRequest, answer: PictureInfo },
  render: { request: RenderRequest, answer: RenderAnswer },
  'render-figure': { request: RenderFigureRequest, answer: RenderFigureAnswer }
} as const;
export type RouteName = keyof typeof ROUTES;
export type RouteRequest<R extends RouteName> = z.input<(typeof ROUTES)[R]['request']>;
export type RouteAnswer<R extends RouteName> = z.infer<(typeof ROUTES)[R]['answer']>;

/** Each route's answer schema, typed per route (for clients checking answers). */
export const ANSWERS: { readonly [R in RouteName]: z.ZodType<RouteAnswer<R>> } = {
  'check-svg': CheckSvgAnswer,
  'picture-info': PictureInfo,
  render: RenderAnswer,
  'render-figure': RenderFigureAnswer
};
