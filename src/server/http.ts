/**
 * The figure server's HTTP plumbing: a route table, JSON bodies with a size cap, and JSON errors
 * that carry an actionable message. Routes are plain async functions so tests can call them
 * directly or over a real socket.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a route gets besides its body. */
export interface RouteContext {
  /** The Jupyter root: workspace picture paths resolve against it. */
  readonly root: string;
  /** Whether Jupyter hides hidden files (then they are refused as pictures). */
  readonly hideHidden: boolean;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

/** A JSON route: validated body in, JSON (or PNG bytes) out. */
export type JsonRoute = (body: unknown, ctx: RouteContext) => Promise<RouteResult>;

/** What a JSON route answers. */
export type RouteResult =
  { status?: number; json: unknown } | { status?: number; bytes: Buffer; contentType: string };

/** A raw route handles the request itself (the streaming model proxy). */
export type RawRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RouteContext
) => Promise<void>;

/** An error with an HTTP status whose message the user can act on. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code = 'error'
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Largest JSON body a route accepts (pictures travel as base64 inside it). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Read a request body into one Buffer, refusing more than `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      throw new HttpError(
        413,
        `Request body is larger than ${limit} bytes; send a smaller picture.`,
        'too-large'
      );
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Parse a JSON request body; a malformed one is a 400 with the parser's reason. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req);
  if (body.length === 0) {
    return {};
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new HttpError(400, `Request body is not JSON: ${(error as Error).message}`, 'bad-json');
  }
}

/** Answer with a JSON document. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store'
  });
  res.end(text);
}

/** Answer with an error document `{ error: { code, message } }`. */
export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy(error instanceof Error ? error : undefined);
    return;
  }
  if (error instanceof HttpError) {
    sendJson(res, error.status, { error: { code: error.code, message: error.message } });
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  sendJson(res, 500, {
    error: { code: 'internal', message: `Figure server error: ${message}` }
  });
}

/** Send what a JSON route returned. */
export function sendResult(res: ServerResponse, result: RouteResult): void {
  const status = result.status ?? 200;
  if ('bytes' in result) {
    res.writeHead(status, {
      'Content-Type': result.contentType,
      'Content-Length': result.bytes.length,
      'Cache-Control': 'no-store'
    });
    res.end(result.bytes);
    return;
  }
  sendJson(res, status, result.json);
}
