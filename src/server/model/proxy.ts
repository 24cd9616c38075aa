/**
 * `POST model`: a streaming proxy to an OpenAI-compatible Chat Completions endpoint.
 *
 * The browser sends the request body (and, within the rules of `model-endpoint.ts`, the
 * endpoint); the API key is added here, from the server's environment, so it never reaches the
 * browser, the settings file or the notebook. Chunks are forwarded as they arrive. Every upstream
 * byte is bounded: error bodies by a cap and a timer, streams by an idle timeout, a total time
 * and a total size; anything the key could hide in is redacted first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { isRecord } from '../../tools/guards';

import { HttpError, readJson, sendError, type RouteContext } from '../http/http';
import { checkRequestId, registerModelRequest } from './cancel';
import { chooseModelTarget, serverModelConfig, type ModelTarget } from './endpoint';
import { ModelLimitError, limitMessage, modelLimits, type ModelLimits } from './limits';
import { KeyRedactor } from './redact';
import { SseLineForwarder, type StreamForwarder } from './sse-lines';
import {
  ERROR_BODY_TIMEOUT_MS,
  MAX_ERROR_BODY_BYTES,
  readCapped,
  upstreamDetail,
  upstreamMessage
} from './upstream-error';

interface ModelRequest {
  endpoint?: string;
  body: Record<string, unknown>;
  id?: string;
}

function parseModelRequest(value: unknown): ModelRequest {
  if (typeof value !== 'object' || value === null) {
    throw new HttpError(400, 'Model request must be a JSON object with `endpoint` and `body`.');
  }
  const { endpoint, body, id } = value as Record<string, unknown>;
  if (endpoint !== undefined && typeof endpoint !== 'string') {
    throw new HttpError(
      400,
      `Model endpoint ${JSON.stringify(endpoint)} is not an http(s) URL; set it in Settings → Figure Chat (for example http://localhost:11434/v1).`,
      'bad-endpoint'
    );
  }
  if (!isRecord(body)) {
    throw new HttpError(400, 'Model request `body` must be a Chat Completions request object.');
  }
  return {
    endpoint,
    body,
    id: id === undefined ? undefined : checkRequestId(id)
  };
}

/** What a user can do about an endpoint that does not answer, by where it came from. */
function unreachableHint(target: ModelTarget): string {
  switch (target.source) {
    case 'settings':
      return "Start it (for Ollama: `ollama serve`), or change the endpoint in Settings → Figure Chat (leave it empty to use the Jupyter server's).";
    case 'default':
      return 'Start it (for Ollama: `ollama serve`), set an endpoint in Settings → Figure Chat, or ask the Jupyter administrator to set FIGURE_CHAT_ENDPOINT.';
    default:
      return 'Ask the Jupyter administrator to check it (the model server may be down); without an API key on the server you may set your own endpoint in Settings → Figure Chat.';
  }
}

function describeFetchFailure(error: unknown, target: ModelTarget): HttpError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET'].includes(code)) {
    return new HttpError(
      502,
      `No model server answered at ${target.label} (${code}). ${unreachableHint(target)}`,
      'unreachable'
    );
  }
  return new HttpError(
    502,
    `Could not reach the model server at ${target.label}: ${cause?.message ?? (error as Error).message}. ${unreachableHint(target)}`,
    'unreachable'
  );
}

/**
 * Whether a request failed because its connection closed before any answer came. That is what a
 * pooled keep-alive connection does when the model server closes it as idle just as the request
 * goes out (cpp-httplib, in llama-server, closes after 5 s; Node's pool keeps a connection about 4 s,
 * by a coarse timer, so a loaded machine loses the race). No answer means nothing was streamed:
 * the request is sent once more, and the closed connection has left the pool.
 */
function closedUnanswered(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/** A content type worth passing on: short, printable, and not carrying anything else. */
function safeContentType(value: string | null, redactor: KeyRedactor | undefined): string {
  if (
    value &&
    value.length <= 100 &&
    /^[\w.+-]+\/[\w.+-]+(\s*;[\w\s=".+-]*)?$/.test(value) &&
    !(redactor && redactor.spans(value).length)
  ) {
    return value;
  }
  return 'text/event-stream';
}

/** Resolves when `res` can take more, or is gone. */
function writable(res: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    signal.addEventListener('abort', done);
  });
}

/** The SSE event that tells the chat why the proxy stopped a stream. */
function errorEvent(error: ModelLimitError): string {
  return `\ndata: ${JSON.stringify({ error: { message: error.message, code: error.code } })}\n\n`;
}

/**
 * The chunks of a response body. Node's web streams are async iterable, but the DOM typings this
 * project compiles with do not say so; a reader needs no claim about either.
 */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        return;
      }
      yield value;
    }
  } finally {
    // A caller that stops early (too large, Stop) cancels the upstream body, as leaving a
    // `for await` over the stream itself does; on an errored or finished body this is a no-op.
    await reader.cancel().catch(() => undefined);
  }
}

async function forwardStream(
  response: Response,
  res: ServerResponse,
  abort: AbortController,
  stop: (code: ModelLimitError['code']) => void,
  limits: ModelLimits,
  redactor: KeyRedactor | undefined
): Promise<void> {
  const body = response.body;
  if (!body) {
    return;
  }
  const sse = /event-stream/i.test(response.headers.get('content-type') ?? '');
  const forwarder: StreamForwarder = new SseLineForwarder(sse, redactor);
  let size = 0;
  let idle = setTimeout(() => stop('idle-timeout'), limits.idleMs);
  try {
    for await (const chunk of chunksOf(body)) {
      clearTimeout(idle);
      size += chunk.length;
      if (size > limits.maxBytes) {
        stop('too-large');
        break;
      }
      const out = forwarder.push(chunk);
      if (out.length && !res.write(out)) {
        // The browser reads slowly: wait instead of buffering the stream in memory.
        await writable(res, abort.signal);
      }
      if (abort.signal.aborted) {
        break;
      }
      idle = setTimeout(() => stop('idle-timeout'), limits.idleMs);
    }
    if (!abort.signal.aborted) {
      res.write(forwarder.end());
    }
  } finally {
    clearTimeout(idle);
  }
}

/** The `model` route: forwards the request and streams the answer back chunk by chunk. */
export async function modelRoute(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RouteContext
): Promise<void> {
  if (req.method !== 'POST') {
    throw new HttpError(405, 'Use POST for the model route.');
  }
  const request = parseModelRequest(await readJson(req));
  const limits = modelLimits();
  const config = serverModelConfig();
  const target = chooseModelTarget(request.endpoint, config);
  // Redact whenever a key exists, even one not sent this time: it costs little and leaks nothing.
  const redactor = config.key ? new KeyRedactor(config.key) : undefined;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: request.body.stream === false ? 'application/json' : 'text/event-stream'
  };
  if (target.key) {
    headers.Authorization = `Bearer ${target.key}`;
  }
  const abort = new AbortController();
  let limit: ModelLimitError | undefined;
  const stop = (code: ModelLimitError['code']): void => {
    limit ??= new ModelLimitError(limitMessage(code, limits, target.label), code);
    abort.abort(limit);
  };
  const unregister = request.id ? registerModelRequest(request.id, abort) : undefined;
  const onClientGone = (): void => abort.abort(new DOMException('client gone', 'AbortError'));
  ctx.signal.addEventListener('abort', onClientGone);
  const connectTimer = setTimeout(() => stop('connect-timeout'), limits.connectMs);
  const totalTimer = setTimeout(() => stop('too-long'), limits.totalMs);
  try {
    let response: Response;
    try {
      const send = (): Promise<Response> =>
        fetch(target.url, {
          method: 'POST',
          headers,
          body: JSON.stringify(request.body),
          signal: abort.signal,
          redirect: 'manual'
        });
      response = await send().catch((error: unknown) => {
        if (abort.signal.aborted || !closedUnanswered(error)) {
          throw error;
        }
        return send();
      });
    } catch (error) {
      if (limit) {
        throw new HttpError(504, limit.message, limit.code);
      }
      if (abort.signal.aborted) {
        throw new HttpError(409, 'The model request was cancelled.', 'cancelled');
      }
      throw describeFetchFailure(error, target);
    } finally {
      clearTimeout(connectTimer);
    }
    if (!response.ok) {
      // A redirect is not followed: it could lead the key elsewhere.
      const status = response.status >= 400 && response.status < 600 ? response.status : 502;
      const code = [400, 415, 422].includes(status) ? 'rejected' : 'upstream';
      // A stalled error body gets no more time than a stalled stream would.
      const text = await readCapped(
        response.body,
        MAX_ERROR_BODY_BYTES,
        Math.min(ERROR_BODY_TIMEOUT_MS, limits.idleMs)
      );
      const detail = upstreamDetail(text, response.headers.get('content-type'), redactor);
      throw new HttpError(status, upstreamMessage(response.status, detail, target.label), code);
    }
    res.writeHead(200, {
      'Content-Type': safeContentType(response.headers.get('content-type'), redactor),
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no'
    });
    res.flushHeaders();
    try {
      await forwardStream(response, res, abort, stop, limits, redactor);
    } catch {
      if (!limit && !abort.signal.aborted) {
        // The upstream stream broke: end ours so the browser sees the truncation.
        res.end();
        return;
      }
    }
    if (limit && /event-stream/i.test(response.headers.get('content-type') ?? '')) {
      res.write(errorEvent(limit));
    }
    res.end();
  } catch (error) {
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(
      res,
      error instanceof HttpError && target.note
        ? new HttpError(error.status, error.message + target.note, error.code, error.retryAfter)
        : error
    );
  } finally {
    clearTimeout(totalTimer);
    unregister?.();
    ctx.signal.removeEventListener('abort', onClientGone);
    if (!abort.signal.aborted) {
      // Whatever is left of the upstream answer is not wanted: close the connection.
      abort.abort(new DOMException('done', 'AbortError'));
    }
  }
}
