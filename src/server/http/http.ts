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
export type RouteResult = (
  { status?: number; json: unknown } | { status?: number; bytes: Buffer; contentType: string }
) & {
  /**
   * Milliseconds the route spent, by stage, sent as `Server-Timing` so that a page's Resource
   * Timing (the reopen benchmark) can tell the figure server's time from the proxy's and the
   * browser's. Names are plain tokens.
   */
  timing?: Readonly<Record<string, number>>;
};

/** A `Server-Timing` header value for a route's stages. */
export function serverTiming(timing: Readonly<Record<string, number>>): string {
  return Object.entries(timing)
    .filter(([name]) => /^[a-z][a-z0-9-]*$/.test(name))
    .map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`)
    .join(', ');
}

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
    readonly code = 'error',
    /** Seconds after which a retry may succeed (sent as `Retry-After`). */
    readonly retryAfter?: number
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Largest JSON body a route accepts (pictures travel as base64 inside it). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Request bytes all requests together may hold at once (`FIGURE_CHAT_MAX_INFLIGHT_BYTES`): ten
 * large uploads at once must not take the server's memory. Past it, a request gets 503 with a
 * retry hint instead of being read.
 */
export const DEFAULT_INFLIGHT_BYTES = 256 * 1024 * 1024;

/** What a request refused for the budget is told to wait, in seconds. */
export const BUSY_RETRY_AFTER_S = 2;

/** The in-flight budget in force (read per request, so a test or an admin can change it). */
export function inflightBudget(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.FIGURE_CHAT_MAX_INFLIGHT_BYTES);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_INFLIGHT_BYTES;
}

let inflightBytes = 0;

/** Request bytes currently held by all requests. */
export function bytesInFlight(): number {
  return inflightBytes;
}

/** The bytes one request holds against the budget, until it is released. */
class BodyLease {
  private _bytes = 0;

  /** Refuse (503) when `bytes` more would not fit the budget now. */
  check(bytes: number): void {
    if (inflightBytes + bytes > inflightBudget()) {
      throw new HttpError(
        503,
        `The figure server is busy with other large requests (${Math.round(inflightBytes / 1048576)} MiB in flight); try again in ${BUSY_RETRY_AFTER_S} s.`,
        'busy',
        BUSY_RETRY_AFTER_S
      );
    }
  }

  take(bytes: number): void {
    this.check(bytes);
    inflightBytes += bytes;
    this._bytes += bytes;
  }

  release(): void {
    inflightBytes -= this._bytes;
    this._bytes = 0;
  }
}

const leases = new WeakMap<IncomingMessage, BodyLease>();

/** Count this request's body against the in-flight budget; call the result when done with it. */
export function trackRequestBytes(req: IncomingMessage): () => void {
  const lease = new BodyLease();
  leases.set(req, lease);
  return () => lease.release();
}

function tooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    `Request body is larger than ${limit} bytes; send a smaller picture.`,
    'too-large'
  );
}

/**
 * Read a request body into one Buffer, refusing more than `limit` bytes. On a refusal the rest of
 * the body is left unread for `drainRequest` (destroying the request would cut the connection,
 * and Jupyter would turn that into an HTML 500).
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const lease = leases.get(req);
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    return Promise.reject(tooLarge(limit));
  }
  try {
    // A declared size that cannot fit is refused before a byte is held.
    lease?.check(declared > 0 ? declared : 0);
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const fail = (error: Error): void => {
      stop();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        fail(tooLarge(limit));
        return;
      }
      try {
        lease?.take(chunk.length);
      } catch (error) {
        fail(error as Error);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error): void => fail(error);
    const onClose = (): void => {
      if (!req.complete) {
        fail(new HttpError(400, 'The request was cut off before its body ended.', 'aborted'));
      }
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** Most request bytes read and thrown away so that an early refusal can still be answered. */
export const MAX_DRAIN_BYTES = 256 * 1024 * 1024;

/** How long draining may take. */
export const DRAIN_TIMEOUT_MS = 30_000;

/**
 * Read and discard the rest of a request body, up to a cap and a time limit. An answer sent while
 * the client is still uploading makes jupyter-server-proxy fail with a broken pipe and show an
 * HTML 500 instead of our JSON. Resolves true when the whole body was read.
 */
export function drainRequest(
  req: IncomingMessage,
  maxBytes = MAX_DRAIN_BYTES,
  timeoutMs = DRAIN_TIMEOUT_MS
): Promise<boolean> {
  if (req.complete || req.readableEnded) {
    return Promise.resolve(true);
  }
  if (req.destroyed) {
    return Promise.resolve(false);
  }
  return new Promise(resolve => {
    let size = 0;
    const finish = (drained: boolean): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      resolve(drained);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        finish(false);
      }
    };
    const onEnd = (): void => finish(true);
    const onClose = (): void => finish(req.complete);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
    req.resume();
  });
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
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {}
): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    ...headers,
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
    const retry = error.retryAfter;
    sendJson(
      res,
      error.status,
      {
        error: { code: error.code, message: error.message, ...(retry ? { retryAfter: retry } : {}) }
      },
      retry ? { 'Retry-After': String(retry) } : {}
    );
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
  const timing: Record<string, string> = result.timing
    ? { 'Server-Timing': serverTiming(result.timing) }
    : {};
  if ('bytes' in result) {
    res.writeHead(status, {
      ...timing,
      'Content-Type': result.contentType,
      'Content-Length': result.bytes.length,
      'Cache-Control': 'no-store'
    });
    res.end(result.bytes);
    return;
  }
  sendJson(res, status, result.json, timing);
}
