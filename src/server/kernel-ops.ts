/**
 * What `figure-chat kernel` does for the Python `Figure` and `Vision`: the same pure code the chat's
 * tools run (the SVG policy, `planVisionCall`, `validateRecord`) and the same rendering
 * (`checkSvg`, `renderView`), so a kernel call means exactly what the model's call means and fails
 * with the same message.
 */
import { createHash } from 'node:crypto';

import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import { z } from 'zod';

import { ToolRegistry } from '../tools/registry';
import type { ToolHost } from '../tools/host';
import { presentSvgTool } from '../tools/present-svg';
import { presentSvgInput } from '../tools/svg';
import { visionTools } from '../tools/vision-tools';
import {
  DEFAULT_COLOUR,
  defaultRadius,
  isVisionTool,
  planVisionCall,
  validateRecord,
  ViewSpec,
  VisionError,
  type VisionRecord
} from '../tools/vision';
import { CheckSvgRequest } from '../tools/wire';
import { HttpError } from './http';
import {
  LIMIT_INPUT_PIXELS,
  MAX_PICTURE_BYTES,
  PictureCache,
  readHeader,
  type Picture
} from './pictures';
import { kernelToolHost, renderStored, type StoredView } from './kernel-host';
import { keepQuickPreview, preview, PREVIEW_MAX_SIDE, startQuickPreview } from './kernel-preview';
import { checkSvg } from './svg';
import { resvgOptions } from './svg-fonts';

/** Most pixels of a figure's PNG fallback: crisp at 2× for small figures, bounded for large ones. */
export const FIGURE_PNG_MAX_PIXELS = 4_000_000;

export { STORED_PNG_COMPRESSION_LEVEL } from './kernel-host';

/** What a request asked for that could not be done; `type` says which Python exception to raise. */
export class KernelOpError extends Error {
  constructor(
    readonly type: 'svg' | 'vision' | 'picture' | 'request',
    readonly code: string,
    message: string
  ) {
    super(message);
    this.name = 'KernelOpError';
  }
}

/** One answer: a JSON header and the binary payload (PNG bytes, concatenated when several). */
export interface KernelAnswer {
  readonly json: Record<string, unknown>;
  readonly payload?: Buffer;
}

/** Pictures this kernel sent, by sha-256; Python resends a picture this cache has dropped. */
const pictures = new PictureCache();

const PictureRef = z.object({
  address: z.string().min(1).max(4096),
  sha256: z.string().regex(/^[0-9a-f]{64}$/)
});

const RawLayout = z.object({
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  channels: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)])
});

const Requests = {
  figure: z.object({ svg: z.unknown(), alt: z.unknown() }),
  picture: z.object({
    address: z.string().min(1).max(4096),
    raw: RawLayout.optional(),
    // The side of the quick preview the widget will ask for next: started now (./kernel-preview).
    quickPreview: z.number().int().min(64).max(PREVIEW_MAX_SIDE).optional()
  }),
  preview: z.object({
    picture: PictureRef,
    maxSide: z.number().int().min(64).max(PREVIEW_MAX_SIDE).optional()
  }),
  vision: z.object({
    picture: PictureRef,
    name: z.string(),
    args: z.unknown(),
    record: z.unknown()
  }),
  render: z.object({ picture: PictureRef, record: z.unknown(), view: ViewSpec }),
  marks: z.object({ picture: PictureRef, record: z.unknown(), marks: z.array(z.unknown()) }),
  'check-record': z.object({ picture: PictureRef, record: z.unknown() })
} as const;

function parse<T extends z.ZodType>(schema: T, op: string, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new KernelOpError(
      'request',
      'bad-request',
      `${op}: ${issue?.path.join('.') || 'request'}: ${issue?.message ?? 'invalid'}`
    );
  }
  return parsed.data;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function cached(ref: z.infer<typeof PictureRef>): Picture {
  const entry = pictures.get(ref.sha256);
  if (!entry) {
    throw new KernelOpError(
      'picture',
      'need-picture',
      `the figure program does not hold ${ref.address}; send it again`
    );
  }
  return { address: ref.address, sha256: ref.sha256, ...entry };
}

function recordOf(value: unknown, picture: Picture): VisionRecord {
  const record = validateRecord(value, picture);
  if (record.image !== picture.address) {
    throw new KernelOpError(
      'request',
      'bad-request',
      `the record is for ${record.image}, not ${picture.address}`
    );
  }
  return record;
}

/**
 * `figure { svg, alt }`: the registry's `present_svg` handler (its arguments checked by the tool's
 * schema, the SVG by its `check-svg` call, answered here in process), then a PNG fallback
 * rendered by resvg.
 */
async function figure(body: z.infer<typeof Requests.figure>): Promise<KernelAnswer> {
  const tool = registry.get('present_svg');
  const args = presentSvgInput.safeParse({ svg: body.svg, alt: body.alt });
  if (!tool || !args.success) {
    const issue = args.success ? undefined : args.error.issues[0];
    throw new KernelOpError('svg', 'bad-args', issue?.message ?? 'svg and alt are required');
  }
  let check: ReturnType<typeof checkSvg> | undefined;
  const host: ToolHost = {
    kind: 'figure-chat-kernel',
    cells: () => null,
    pictureData: () => undefined,
    request: <T>(route: string, request: unknown): Promise<T> => {
      const parsed = CheckSvgRequest.safeParse(request);
      if (route !== 'check-svg' || !parsed.success) {
        return Promise.reject(
          new KernelOpError('request', 'bad-request', `the kernel program has no ${route} route`)
        );
      }
      check = checkSvg(parsed.data.svg);
      const answer = check.ok ? { ok: true, ...check.value } : { ok: false, error: check.error };
      return Promise.resolve(answer as T);
    },
    vision: { messages: () => [], owner: {} }
  };
  const output = await tool.run(args.data, { signal: new AbortController().signal, host });
  if (!check) {
    throw new KernelOpError('svg', 'bad-args', output.text.replace(/^Tool error: /, ''));
  }
  if (!check.ok) {
    throw new KernelOpError('svg', check.error.kind, check.error.message);
  }
  // Only now, with the size checked against the policy's limits, does resvg render.
  const { width, height } = check.value;
  const scale = Math.min(2, Math.sqrt(FIGURE_PNG_MAX_PIXELS / (width * height)));
  const rendered = new Resvg(args.data.svg, {
    ...resvgOptions(),
    fitTo: { mode: 'zoom', value: scale }
  }).render();
  const png = rendered.asPng();
  return {
    json: { width, height, pngWidth: rendered.width, pngHeight: rendered.height },
    payload: png
  };
}

/** `picture { address, raw? }` + bytes: encoded picture bytes, or raw pixels that become a PNG. */
async function picture(
  body: z.infer<typeof Requests.picture>,
  payload: Buffer
): Promise<KernelAnswer> {
  let bytes = payload;
  let encoded = false;
  if (body.raw) {
    const { width, height, channels } = body.raw;
    if (width * height > LIMIT_INPUT_PIXELS) {
      throw new KernelOpError(
        'picture',
        'too-many-pixels',
        `${body.address} is ${width}×${height} pixels, more than the ${LIMIT_INPUT_PIXELS} allowed; scale it down first`
      );
    }
    if (payload.length !== width * height * channels) {
      throw new KernelOpError(
        'request',
        'bad-request',
        `picture: ${payload.length} bytes is not ${width}×${height}×${channels}`
      );
    }
    // Level 1: the picture stays in memory and on the comm; only views are stored in notebooks.
    bytes = await sharp(payload, { raw: { width, height, channels } })
      .png({ compressionLevel: 1 })
      .toBuffer();
    encoded = true;
  }
  if (bytes.length > MAX_PICTURE_BYTES) {
    throw new KernelOpError(
      'picture',
      'too-large',
      `${body.address} is ${bytes.length} bytes; the limit is ${MAX_PICTURE_BYTES}`
    );
  }
  const header = await readHeader(bytes, body.address);
  // Started before the hash: its decode (sharp's threads) overlaps the hashing (this thread), then
  // the widget's opening in the kernel, and the widget's `preview` request takes it.
  const quick =
    body.quickPreview === undefined
      ? undefined
      : startQuickPreview({ bytes, width: header.width, height: header.height }, body.quickPreview);
  const digest = sha256(bytes);
  if (quick && body.quickPreview !== undefined) {
    keepQuickPreview(digest, body.quickPreview, quick);
  }
  pictures.set(digest, { bytes, ...header });
  return {
    json: {
      address: body.address,
      sha256: digest,
      ...header,
      encoded,
      quickPreview: quick !== undefined
    },
    payload: encoded ? bytes : undefined
  };
}

/** The record as `vision_list` tells it: the text fallback of every vision output. */
function listText(record: VisionRecord, source: Picture): string {
  return planVisionCall('vision_list', {}, record, source).text;
}

function storedAnswer(
  source: Picture,
  record: VisionRecord,
  rendered: readonly StoredView[]
): KernelAnswer {
  return {
    json: {
      specs: rendered.map(view => view.spec),
      list: listText(record, source),
      views: rendered.map(({ width, height, caption, png }) => ({
        width,
        height,
        caption,
        length: png.length
      }))
    },
    payload: Buffer.concat(rendered.map(view => view.png))
  };
}

async function renderAll(
  source: Picture,
  record: VisionRecord,
  views: readonly ViewSpec[]
): Promise<KernelAnswer> {
  return storedAnswer(source, record, await renderStored(source, record, views));
}

/**
 * `vision { picture, name, args, record }`: one vision tool call, run by the registry's handler
 * with the kernel as its host, on the record the kernel holds. The handler is called directly,
 * not through `registry.call`, so that its errors keep their codes for the Python exceptions.
 */
async function vision(body: z.infer<typeof Requests.vision>): Promise<KernelAnswer> {
  const tool = registry.get(body.name);
  if (!tool || !isVisionTool(body.name)) {
    throw new KernelOpError('request', 'bad-request', `unknown vision tool ${body.name}`);
  }
  if (typeof body.args !== 'object' || body.args === null || Array.isArray(body.args)) {
    throw new KernelOpError('request', 'bad-request', 'vision: args must be an object');
  }
  const source = cached(body.picture);
  const kernel = kernelToolHost(source, recordOf(body.record, source));
  const output = await tool.run(
    { ...(body.args as Record<string, unknown>), image: source.address },
    { signal: new AbortController().signal, host: kernel.host }
  );
  if (kernel.failure() !== undefined) {
    throw kernel.failure();
  }
  if (output.status !== 'completed') {
    throw new KernelOpError('vision', 'bad-args', output.text.replace(/^Tool error: /, ''));
  }
  const answer = storedAnswer(source, kernel.record(), kernel.views());
  return {
    json: { ...answer.json, record: kernel.record(), text: output.text },
    payload: answer.payload
  };
}

/**
 * `marks { picture, record, marks }`: a whole new mark list (`v.marks = detections`). A mark
 * without a number gets the next one, a missing caption, colour or radius its tool default; then
 * the record passes the same validation as one read from a notebook.
 */
function marks(body: z.infer<typeof Requests.marks>): KernelAnswer {
  const source = cached(body.picture);
  const previous = recordOf(body.record, source);
  const given = body.marks.map((mark, index) => {
    if (typeof mark !== 'object' || mark === null || Array.isArray(mark)) {
      throw new VisionError('bad-args', `marks.${index}: a mark is a dict, not ${typeof mark}.`);
    }
    return mark as Record<string, unknown>;
  });
  let lastId = Math.max(
    previous.lastId,
    ...given.map(mark => (typeof mark.id === 'number' ? mark.id : 0))
  );
  const filled = given.map(mark => {
    const kind = mark.kind ?? ('x0' in mark ? 'box' : 'point');
    const id = mark.id ?? ++lastId;
    const defaults =
      kind === 'point' ? { r: defaultRadius(source) } : ({} as Record<string, unknown>);
    return { ...defaults, caption: '', colour: DEFAULT_COLOUR, ...mark, id, kind };
  });
  const record = validateRecord({ image: source.address, lastId, marks: filled }, source);
  return { json: { record } };
}

/** `render { picture, record, view }`: one view of a record (the output's PNG). */
async function render(body: z.infer<typeof Requests.render>): Promise<KernelAnswer> {
  const source = cached(body.picture);
  return renderAll(source, recordOf(body.record, source), [body.view]);
}

/** The registry of the tools the kernel runs: the very handlers the chat registers. */
const registry = new ToolRegistry();
for (const tool of visionTools) {
  registry.register(tool);
}
registry.register(presentSvgTool);

/** Run one request; every failure becomes a {@link KernelOpError} the Python side can raise. */
export async function runKernelOp(header: unknown, payload: Buffer): Promise<KernelAnswer> {
  const op = (header as { op?: unknown } | null)?.op;
  try {
    switch (op) {
      case 'figure':
        return await figure(parse(Requests.figure, op, header));
      case 'picture':
        return await picture(parse(Requests.picture, op, header), payload);
      case 'preview': {
        const body = parse(Requests.preview, op, header);
        return await preview(cached(body.picture), body.maxSide ?? PREVIEW_MAX_SIDE);
      }
      case 'vision':
        return await vision(parse(Requests.vision, op, header));
      case 'marks':
        return marks(parse(Requests.marks, op, header));
      case 'render':
        return await render(parse(Requests.render, op, header));
      case 'check-record': {
        // A record the widget's person edited: taken only if the tools could have made it.
        const body = parse(Requests['check-record'], op, header);
        return { json: { record: recordOf(body.record, cached(body.picture)) } };
      }
      default:
        throw new KernelOpError('request', 'bad-request', `unknown op ${String(op)}`);
    }
  } catch (error) {
    if (error instanceof KernelOpError) {
      throw error;
    }
    if (error instanceof VisionError) {
      throw new KernelOpError('vision', error.code, error.message);
    }
    if (error instanceof HttpError) {
      // The picture and render modules speak HTTP; here only their code and message matter.
      const type =
        error.code === 'bad-request' ? 'request' : error.status === 400 ? 'vision' : 'picture';
      throw new KernelOpError(type, error.code, error.message);
    }
    throw error;
  }
}
