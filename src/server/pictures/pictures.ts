/**
 * Picture access for the vision tools: workspace files (read through `./workspace-files`), `cell:`
 * pictures sent by the browser, header-only size reads, sha-256 fingerprints and a bounded cache.
 *
 * sharp is configured here, once, for every module that decodes pictures: SVG loading through
 * librsvg is blocked (only our own overlays are rasterized, by resvg), and sharp only ever gets
 * Buffers, because a string would be read as a file path.
 */
import { createHash } from 'node:crypto';

import sharp from 'sharp';
import { z } from 'zod';

import { parsePictureAddress, type PictureInfo, type VisionError } from '../../tools/vision';
import { HttpError, type JsonRoute, type RouteContext } from '../http/http';
import { MAX_PICTURE_BYTES, readWorkspaceFile, resolveWorkspacePath } from './workspace-files';

export { MAX_PICTURE_BYTES, resolveWorkspacePath };

sharp.block({ operation: ['VipsForeignLoadSvg'] });

/** Largest picture decoded, in pixels (width × height): sharp's `limitInputPixels`. */
export const LIMIT_INPUT_PIXELS = 100_000_000;

/** Picture formats accepted; anything else sharp could read (PDF, SVG, raw…) is refused. */
export const PICTURE_FORMATS = ['jpeg', 'png', 'webp', 'gif', 'tiff'] as const;

/** Total bytes the picture cache may hold. */
export const PICTURE_CACHE_BYTES = 256 * 1024 * 1024;

/** A picture's bytes with what its header says. */
export interface Picture {
  readonly address: string;
  readonly bytes: Buffer;
  readonly sha256: string;
  readonly width: number;
  readonly height: number;
  readonly format: string;
}

interface CachedPicture {
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
  readonly format: string;
}

/** A cache of decoded-header pictures by sha-256, bounded by total bytes, least recently used out. */
export class PictureCache {
  private readonly _entries = new Map<string, CachedPicture>();
  private _bytes = 0;

  constructor(readonly limit = PICTURE_CACHE_BYTES) {}

  /** Total bytes held. */
  get bytes(): number {
    return this._bytes;
  }

  get(sha256: string): CachedPicture | undefined {
    const entry = this._entries.get(sha256);
    if (entry) {
      // Re-inserting moves the entry to the end: Map order is the recency order.
      this._entries.delete(sha256);
      this._entries.set(sha256, entry);
    }
    return entry;
  }

  /** Forget every picture (a restarted server holds none: callers must send bytes again). */
  clear(): void {
    this._entries.clear();
    this._bytes = 0;
  }

  set(sha256: string, entry: CachedPicture): void {
    if (entry.bytes.length > this.limit) {
      return;
    }
    const old = this._entries.get(sha256);
    if (old) {
      this._bytes -= old.bytes.length;
      this._entries.delete(sha256);
    }
    this._entries.set(sha256, entry);
    this._bytes += entry.bytes.length;
    for (const [key, value] of this._entries) {
      if (this._bytes <= this.limit) {
        break;
      }
      this._entries.delete(key);
      this._bytes -= value.bytes.length;
    }
  }
}

/** The process-wide picture cache. */
export const pictureCache = new PictureCache();

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(data: string, address: string): Buffer {
  const compact = data.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 === 1) {
    throw new HttpError(
      400,
      `Picture data for ${address} is not base64; send the output's image/png or image/jpeg value.`,
      'bad-data'
    );
  }
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.length > MAX_PICTURE_BYTES) {
    throw new HttpError(
      413,
      `Picture ${address} is larger than ${MAX_PICTURE_BYTES} bytes.`,
      'too-large'
    );
  }
  return bytes;
}

/** Read a picture's header with sharp (Buffer only), refusing what is not a picture we render. */
export async function readHeader(
  bytes: Buffer,
  address: string
): Promise<Omit<CachedPicture, 'bytes'>> {
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await sharp(bytes, {
      limitInputPixels: LIMIT_INPUT_PIXELS,
      failOn: 'warning'
    }).metadata();
  } catch (error) {
    throw new HttpError(
      415,
      `${address} is not a picture Figure Chat can read (${(error as Error).message}); use PNG, JPEG, WebP, GIF or TIFF.`,
      'not-an-image'
    );
  }
  const format = meta.format ?? 'unknown';
  if (!(PICTURE_FORMATS as readonly string[]).includes(format)) {
    throw new HttpError(
      415,
      `${address} is ${format}, which Figure Chat does not mark; use PNG, JPEG, WebP, GIF or TIFF.`,
      'not-an-image'
    );
  }
  // EXIF orientations 5–8 turn the picture a quarter: measured the way it is shown and drawn.
  const quarterTurn = (meta.orientation ?? 1) >= 5;
  const storedWidth = meta.width ?? 0;
  const storedHeight = meta.pageHeight ?? meta.height ?? 0;
  const width = quarterTurn ? storedHeight : storedWidth;
  const height = quarterTurn ? storedWidth : storedHeight;
  if (width <= 0 || height <= 0) {
    throw new HttpError(
      415,
      `${address} has no size in its header; it may be corrupt.`,
      'not-an-image'
    );
  }
  if (width * height > LIMIT_INPUT_PIXELS) {
    throw new HttpError(
      413,
      `${address} is ${width}×${height} pixels, more than the ${LIMIT_INPUT_PIXELS} allowed; scale it down first.`,
      'too-many-pixels'
    );
  }
  return { width, height, format };
}

/** What a request says about its picture. */
export interface PictureRequest {
  readonly address: string;
  /** Base64 bytes, for `cell:` addresses (or a Vision output's picture, with `expectSha256`). */
  readonly data?: string;
  /** The sha-256 the conversation marked; a different picture now is a 409. */
  readonly expectSha256?: string;
  /** The bytes are the ones with `expectSha256`, which this server holds (else 428); no data. */
  readonly cachedBytes?: true;
}

function needData(address: string): HttpError {
  return new HttpError(
    428,
    `The figure server does not hold ${address}; send its base64 bytes in "data".`,
    'need-data'
  );
}

/** Load a picture for a request: bytes, fingerprint and header. */
export async function loadPicture(
  request: PictureRequest,
  ctx: Pick<RouteContext, 'root' | 'hideHidden'>
): Promise<Picture> {
  const { address, data, expectSha256, cachedBytes } = request;
  let parsed;
  try {
    parsed = parsePictureAddress(address);
  } catch (error) {
    throw new HttpError(400, (error as VisionError).message, 'bad-address');
  }
  let bytes: Buffer | undefined;
  let digest: string;
  if (cachedBytes) {
    // Named by hash only: the bytes held under it, whatever the address (never a workspace
    // file read for a name the caller chose).
    if (expectSha256 === undefined || data !== undefined) {
      throw new HttpError(
        400,
        `"cachedBytes" names the picture by "expectSha256" alone; send no "data" with it.`,
        'bad-data'
      );
    }
    if (!pictureCache.get(expectSha256)) {
      throw needData(address);
    }
    digest = expectSha256;
  } else if (parsed.kind === 'cell') {
    if (data !== undefined) {
      bytes = decodeBase64(data, address);
      digest = sha256(bytes);
    } else if (expectSha256 && pictureCache.get(expectSha256)) {
      digest = expectSha256;
    } else {
      throw needData(address);
    }
  } else if (data !== undefined) {
    // A picture a Vision output holds, named by the kernel (a file name or `array-…`): its bytes
    // come from the kernel, pinned to the sha-256 the output stored. Without that pin a path is
    // the workspace's file, never bytes a caller claims for it.
    if (expectSha256 === undefined) {
      throw new HttpError(
        400,
        `"data" is for cell: pictures, or with "expectSha256" for a Vision output's picture; ${address} is read from the workspace.`,
        'bad-data'
      );
    }
    bytes = decodeBase64(data, address);
    digest = sha256(bytes);
  } else {
    const read = await readWorkspaceFile(
      ctx.root,
      parsed.path,
      ctx.hideHidden,
      known => pictureCache.get(known) !== undefined
    );
    bytes = read.bytes;
    digest = read.sha256 ?? '';
  }
  if (expectSha256 !== undefined && expectSha256 !== digest) {
    throw new HttpError(
      409,
      `The picture ${address} changed since the conversation marked it (sha-256 ${expectSha256.slice(0, 12)}… then, ${digest.slice(0, 12)}… now); its marks may no longer fit. Mark it again.`,
      'picture-changed'
    );
  }
  let entry = pictureCache.get(digest);
  if (!entry) {
    if (!bytes) {
      throw new HttpError(500, `Picture cache lost ${address}; retry.`, 'internal');
    }
    entry = { bytes, ...(await readHeader(bytes, address)) };
    pictureCache.set(digest, entry);
  }
  return { address, sha256: digest, ...entry };
}

/** The fingerprint of a loaded picture. */
export function pictureInfo(picture: Picture): PictureInfo {
  const { address, sha256: digest, width, height, format } = picture;
  return { address, sha256: digest, width, height, format };
}

const PictureInfoBody = z.object({
  address: z.string().min(1),
  data: z.string().optional(),
  expectSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  cachedBytes: z.literal(true).optional()
});

/** Turn a zod failure on a request body into a 400 naming the field. */
export function badBody(route: string, error: z.ZodError): HttpError {
  const issue = error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'body';
  return new HttpError(400, `${route}: ${where}: ${issue?.message ?? 'invalid'}.`, 'bad-request');
}

/** `POST picture-info { address, data? }` → `{ address, sha256, width, height, format }`. */
export const pictureInfoRoute: JsonRoute = async (body, ctx) => {
  const parsed = PictureInfoBody.safeParse(body);
  if (!parsed.success) {
    throw badBody('picture-info', parsed.error);
  }
  return { json: pictureInfo(await loadPicture(parsed.data, ctx)) };
};
