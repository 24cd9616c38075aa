/**
 * The one client of the figure server's routes: requests typed by the wire module, answers
 * checked against it, every failure a {@link FigureServerError}. Built on `requestFigureServer`
 * (or any function of the same shape, such as a session's, or the kernel program's in-process
 * host), which does the transport. Pure, so the tools that use it run in any host.
 */
import type { z } from 'zod';

import {
  ANSWERS,
  decodeRenderAnswer,
  ErrorAnswer,
  WireFormatError,
  type RenderAnswer,
  type RouteAnswer,
  type RouteName,
  type RouteRequest
} from './wire';

/** A figure-server request that failed, with its actionable message. */
export class FigureServerError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    /** Seconds after which the same call may succeed, when the server said so. */
    readonly retryAfter?: number
  ) {
    super(message);
    this.name = 'FigureServerError';
  }
}

/** What a route's error answer says. */
export interface ErrorDetail {
  readonly message: string;
  readonly code: string;
  readonly retryAfter?: number;
}

/**
 * The figure server's error answer (`{ error: { message, code?, retryAfter? } }`), or null when
 * the JSON is something else (Jupyter's proxy answers for a figure server that is restarting).
 */
export function readErrorAnswer(data: unknown): ErrorDetail | null {
  const parsed = ErrorAnswer.safeParse(data);
  if (!parsed.success) {
    return null;
  }
  const { message, code, retryAfter } = parsed.data.error;
  return {
    message,
    code: code ?? 'error',
    ...(typeof retryAfter === 'number' ? { retryAfter } : {})
  };
}

/**
 * POST JSON to a figure-server route and resolve to its parsed JSON answer, or to its bytes (an
 * `ArrayBuffer` or `Uint8Array`) when the server answered `application/octet-stream`.
 */
export type FigureServerRequest = <T>(
  route: string,
  body: unknown,
  signal: AbortSignal
) => Promise<T>;

/** A `Uint8Array` in a runtime that encodes base64 natively (Chromium 140+, Firefox 133+). */
type NativeBase64 = Uint8Array & { toBase64?: () => string };

/**
 * Base64 of bytes: natively where the runtime can (a reopened notebook's 20 views are about 1.5 MB
 * of PNG, which the loop below spent 50–150 ms of the page's main thread on), else in chunks so
 * that large PNGs never overflow the call stack.
 */
export function bytesToBase64(bytes: Uint8Array): string {
  const native = (bytes as NativeBase64).toBase64;
  if (typeof native === 'function') {
    return native.call(bytes);
  }
  const CHUNK = 0x8000;
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

function badAnswer(route: string, detail: string): FigureServerError {
  return new FigureServerError(
    502,
    `The figure server's ${route} answer does not match this labextension (${detail}). Reinstall jupyterlab-figure-chat and restart JupyterLab so both are the same version.`,
    'bad-answer'
  );
}

/**
 * A binary `render` answer as callers use it: base64 PNGs, since every one of them needs base64
 * anyway (a `data:` URL, a notebook attachment, the model's request). Only the wire is binary.
 */
function readRenderBytes(answer: unknown): RenderAnswer {
  const bytes =
    answer instanceof Uint8Array
      ? answer
      : answer instanceof ArrayBuffer
        ? new Uint8Array(answer)
        : undefined;
  if (!bytes) {
    throw badAnswer('render', 'answer: expected binary, got JSON');
  }
  try {
    const { views, picture } = decodeRenderAnswer(bytes);
    return {
      views: views.map(({ png, model, ...view }) => ({
        ...view,
        png: bytesToBase64(png),
        ...(model ? { model: { mime: model.mime, data: bytesToBase64(model.bytes) } } : {})
      })),
      picture
    };
  } catch (error) {
    if (error instanceof WireFormatError) {
      throw badAnswer('render', error.message);
    }
    throw error;
  }
}

/** Typed, checked calls to the figure server. */
export class FigureClient {
  constructor(private readonly _request: FigureServerRequest) {}

  /** Call a route; an answer that does not match the wire module is a `bad-answer` error. */
  async call<R extends RouteName>(
    route: R,
    body: RouteRequest<R>,
    signal: AbortSignal = new AbortController().signal
  ): Promise<RouteAnswer<R>> {
    // `render` answers in binary: PNG bytes, not base64 in JSON.
    const binary = route === 'render';
    const raw = await this._request<unknown>(
      route,
      binary ? { ...body, answer: 'binary' } : body,
      signal
    );
    const answer = binary ? readRenderBytes(raw) : raw;
    const schema: z.ZodType<RouteAnswer<R>> = ANSWERS[route];
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'answer';
      throw badAnswer(route, `${where}: ${issue?.message}`);
    }
    return parsed.data;
  }
}
