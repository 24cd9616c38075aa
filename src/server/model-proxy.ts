/**
 * `POST model`: a streaming proxy to an OpenAI-compatible Chat Completions endpoint.
 *
 * The browser names the endpoint (from its settings) and sends the request body; the API key is
 * added here, from the server's environment, so it never reaches the browser, the settings file
 * or the notebook. Chunks are forwarded as they arrive: nothing is buffered.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { HttpError, readJson, sendError, type RouteContext } from './http';

/** How long to wait for the model server's response headers. */
export const MODEL_CONNECT_TIMEOUT_MS = 120_000;

/** How long a stream may stay silent before the proxy gives up on it. */
export const MODEL_IDLE_TIMEOUT_MS = 120_000;

/** The API key from the server's environment, if any. */
export function apiKeyFromEnvironment(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env.FIGURE_CHAT_API_KEY || env.OPENAI_API_KEY;
  return key ? key : undefined;
}

interface ModelRequest {
  endpoint: string;
  body: Record<string, unknown>;
}

function parseModelRequest(value: unknown): ModelRequest {
  if (typeof value !== 'object' || value === null) {
    throw new HttpError(400, 'Model request must be a JSON object with `endpoint` and `body`.');
  }
  const { endpoint, body } = value as Record<string, unknown>;
  if (typeof endpoint !== 'string' || !/^https?:\/\//i.test(endpoint)) {
    throw new HttpError(
      400,
      `Model endpoint ${JSON.stringify(endpoint)} is not an http(s) URL; set it in Settings → Figure Chat (for example http://localhost:11434/v1).`,
      'bad-endpoint'
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'Model request `body` must be a Chat Completions request object.');
  }
  return { endpoint, body: body as Record<string, unknown> };
}

/** The completions URL for an endpoint given as its `/v1` base. */
export function completionsUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith('/chat/completions') ? base : `${base}/chat/completions`;
}

function describeFetchFailure(error: unknown, endpoint: string): HttpError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  if (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'ECONNRESET'
  ) {
    return new HttpError(
      502,
      `No model server answered at ${endpoint} (${code}). Start it (for Ollama: \`ollama serve\`) or set the endpoint in Settings → Figure Chat.`,
      'unreachable'
    );
  }
  if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') {
    return new HttpError(
      504,
      `The model server at ${endpoint} did not answer within ${MODEL_CONNECT_TIMEOUT_MS / 1000} s. Check that it is running and not overloaded, or choose a smaller model.`,
      'timeout'
    );
  }
  return new HttpError(
    502,
    `Could not reach the model server at ${endpoint}: ${cause?.message ?? (error as Error).message}. Check the endpoint in Settings → Figure Chat.`,
    'unreachable'
  );
}

/** Read at most `limit` characters of an upstream error body. */
async function errorText(response: Response, limit = 2000): Promise<string> {
  try {
    const text = await response.text();
    return text.length > limit ? `${text.slice(0, limit)}…` : text;
  } catch {
    return '';
  }
}

function redactKey(text: string, key: string | undefined): string {
  return key ? text.split(key).join('[API key]') : text;
}

function upstreamMessage(status: number, text: string, endpoint: string): string {
  let detail = text.trim();
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } | string };
    const error = parsed.error;
    detail = typeof error === 'string' ? error : (error?.message ?? detail);
  } catch {
    // not JSON: keep the text
  }
  const hint =
    status === 401 || status === 403
      ? ' Set FIGURE_CHAT_API_KEY (or OPENAI_API_KEY) in the environment of the Jupyter server.'
      : status === 404
        ? ' Check the endpoint and the model name in Settings → Figure Chat (for Ollama: `ollama pull <model>`).'
        : '';
  return `The model server at ${endpoint} answered ${status}${detail ? `: ${detail}` : ''}.${hint}`;
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
  const { endpoint, body } = parseModelRequest(await readJson(req));
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: body.stream === false ? 'application/json' : 'text/event-stream'
  };
  const key = apiKeyFromEnvironment();
  if (key) {
    headers.Authorization = `Bearer ${key}`;
  }
  const abort = new AbortController();
  const onClientGone = (): void => abort.abort();
  ctx.signal.addEventListener('abort', onClientGone);
  const connectTimer = setTimeout(
    () => abort.abort(new DOMException('connect timeout', 'TimeoutError')),
    MODEL_CONNECT_TIMEOUT_MS
  );
  let response: Response;
  try {
    response = await fetch(completionsUrl(endpoint), {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: abort.signal
    });
  } catch (error) {
    ctx.signal.removeEventListener('abort', onClientGone);
    throw describeFetchFailure(abort.signal.reason ?? error, endpoint);
  } finally {
    clearTimeout(connectTimer);
  }
  try {
    if (!response.ok) {
      const status = response.status >= 400 && response.status < 600 ? response.status : 502;
      const code = [400, 415, 422].includes(status) ? 'rejected' : 'upstream';
      // Some servers echo the credentials they were sent; the key must not reach the browser.
      const text = redactKey(await errorText(response), key);
      throw new HttpError(status, upstreamMessage(response.status, text, endpoint), code);
    }
    res.writeHead(200, {
      'Content-Type': response.headers.get('content-type') ?? 'text/event-stream',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no'
    });
    res.flushHeaders();
    if (!response.body) {
      res.end();
      return;
    }
    let idle = setTimeout(() => abort.abort(), MODEL_IDLE_TIMEOUT_MS);
    try {
      // Node's web streams are async iterable; the DOM typings in this project do not say so.
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        clearTimeout(idle);
        idle = setTimeout(() => abort.abort(), MODEL_IDLE_TIMEOUT_MS);
        res.write(chunk);
      }
    } finally {
      clearTimeout(idle);
    }
    res.end();
  } catch (error) {
    if (res.headersSent) {
      // The stream was cut after it started: end it so the browser sees the truncation.
      res.end();
      return;
    }
    sendError(res, error);
  } finally {
    ctx.signal.removeEventListener('abort', onClientGone);
  }
}
