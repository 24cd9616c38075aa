/**
 * The pictures a kernel sends to `figure-chat kernel`: the `picture` op that takes them (encoded
 * bytes, or raw pixels that become a PNG) and keeps them by sha-256, the `preview` op, and the
 * lookup every later op of a picture goes through.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';

import sharp from 'sharp';
import { z } from 'zod';

import { isRecord } from '../../tools/guards';
import { KernelOpError, type KernelAnswer } from './answer';
import { keepQuickPreview, preview, PREVIEW_MAX_SIDE, startQuickPreview } from './preview';
import {
  LIMIT_INPUT_PIXELS,
  MAX_PICTURE_BYTES,
  PictureCache,
  readHeader,
  type Picture
} from '../pictures/pictures';
import { encodePng } from '../render/png-encode';

/** Pictures this kernel sent, by sha-256; Python resends a picture this cache has dropped. */
const pictures = new PictureCache();

/** How a later request names a picture sent before. */
export const PictureRef = z.object({
  address: z.string().min(1).max(4096),
  sha256: z.string().regex(/^[0-9a-f]{64}$/)
});

const RawLayout = z.object({
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  channels: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)])
});

export const PictureRequest = z.object({
  address: z.string().min(1).max(4096),
  // An encoded file this program reads itself, so a path given to Vision skips the pipe (its
  // bytes reach the decode sooner); Python still reads the file and checks the sha-256.
  path: z.string().min(1).max(4096).optional(),
  raw: RawLayout.optional(),
  // The side of the quick preview the widget will ask for next: started now (./kernel-preview).
  quickPreview: z.number().int().min(64).max(PREVIEW_MAX_SIDE).optional()
});

export const PreviewRequest = z.object({
  picture: PictureRef,
  maxSide: z.number().int().min(64).max(PREVIEW_MAX_SIDE).optional()
});

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The picture a request names, or a `need-picture` error that makes Python send it again. */
export function cached(ref: z.infer<typeof PictureRef>): Picture {
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

/** `picture { address, raw? }` + bytes: encoded picture bytes, or raw pixels that become a PNG. */
export async function pictureOp(
  body: z.infer<typeof PictureRequest>,
  payload: Buffer
): Promise<KernelAnswer> {
  let bytes = body.path === undefined ? payload : await readPictureFile(body, body.path, payload);
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
    // The fast encoder of views: a noisy 4000×3000 array became a 21.6 MB PNG in 0.3 s, where
    // libpng at level 1 (unfiltered) took 0.6–1.3 s for 37 MB, more than the raw pixels. Grey with
    // alpha, which it does not take, stays with sharp.
    bytes =
      channels === 2
        ? await sharp(payload, { raw: { width, height, channels } })
            .png({ compressionLevel: 1 })
            .toBuffer()
        : await encodePng({ data: payload, raw: { width, height, channels } });
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

/** The file a `picture` request names by `path`, checked against the size limit. */
async function readPictureFile(
  body: z.infer<typeof PictureRequest>,
  path: string,
  payload: Buffer
): Promise<Buffer> {
  if (payload.length > 0 || body.raw) {
    throw new KernelOpError('request', 'bad-request', 'picture: send a path or bytes, not both');
  }
  try {
    const info = await stat(path);
    if (!info.isFile()) {
      throw new KernelOpError('picture', 'not-found', `${body.address} is not a file`);
    }
    if (info.size > MAX_PICTURE_BYTES) {
      throw new KernelOpError(
        'picture',
        'too-large',
        `${body.address} is ${info.size} bytes; the limit is ${MAX_PICTURE_BYTES}`
      );
    }
    return await readFile(path);
  } catch (error) {
    if (error instanceof KernelOpError) {
      throw error;
    }
    const code = isRecord(error) && typeof error.code === 'string' ? error.code : String(error);
    throw new KernelOpError(
      'picture',
      'not-found',
      `cannot read the picture ${body.address}: ${code}`
    );
  }
}

/** `preview { picture, maxSide? }`: the downscaled JPEG the widget draws marks over. */
export async function previewOp(body: z.infer<typeof PreviewRequest>): Promise<KernelAnswer> {
  return preview(cached(body.picture), body.maxSide ?? PREVIEW_MAX_SIDE);
}
