/**
 * The one helper for the figure server's JSON routes (`<base_url>figure-chat/<route>`).
 *
 * Jupyter answers for the figure server while it restarts (an HTML 500 or 599) and the figure
 * server answers 503 when too many large requests are in flight: such answers become a clear
 * error, and calls that only read and compute are retried once. Requests are fetched off the
 * page's main thread where a worker can run (./worker-fetch).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { FigureServerError, readErrorAnswer } from '../tools/figure-client';
import { BINARY_CONTENT_TYPE } from '../tools/wire';
import { fetchOffMainThread, type FetchedResponse } from './worker-fetch';

export { FigureServerError };

/** Routes that only read and compute, so repeating a call has no effect beyond its answer. */
export const IDEMPOTENT_ROUTES: ReadonlySet<string> = new Set([
  'version',
  'check-svg',
  'render',
  'render-figure',
  'picture-info'
]);

/** Failures worth one retry: a restarting figure server, a dropped connection, a busy server. */
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['figure-server', 'network', 'busy']);

/** Wait before the retry (the proxy restarts a crashed figure server within about a second). */
export const RETRY_DELAY_MS = 1000;

/** Longest wait a `Retry-After` may ask for before the retry. */
export const MAX_RETRY_DELAY_MS = 5000;

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted(): void {
      clearTimeout(timer);
      reject(signal?.reason ?? new DOMException('aborted', 'AbortError'));
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

async function requestOnce<T>(
  url: string,
  init: RequestInit,
  signal: AbortSignal | undefined,
  settings: ServerConnection.ISettings
): Promise<T> {
  let response: FetchedResponse;
  try {
    response = await fetchOffMainThread(url, init, settings);
  } catch (error) {
    if (signal?.aborted) {
      throw error;
    }
    throw new FigureServerError(
      0,
      `Could not reach the Jupyter server: ${(error as Error).message}`,
      'network'
    );
  }
  if (response.ok && response.headers.get('Content-Type') === BINARY_CONTENT_TYPE) {
    // A binary answer (`render`'s PNGs): the bytes, for the wire module to read.
    return new Uint8Array(await response.arrayBuffer()) as T;
  }
  const text = await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    throw new FigureServerError(
      response.status,
      `The figure server is restarting… (Jupyter answered HTTP ${response.status} instead of its JSON). Try again in a moment; if it keeps failing, check the Jupyter server's log.`,
      'figure-server'
    );
  }
  if (!response.ok) {
    const error = readErrorAnswer(data);
    throw new FigureServerError(
      response.status,
      error?.message ?? `The figure server answered ${response.status}.`,
      error?.code ?? 'error',
      error?.retryAfter
    );
  }
  return data as T;
}

/**
 * POST JSON to a figure-server route (GET when `body` is undefined) and parse the JSON answer; a
 * binary answer (`application/octet-stream`) resolves to its bytes as a `Uint8Array`.
 */
export async function requestFigureServer<T>(
  route: string,
  body?: unknown,
  signal?: AbortSignal,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<T> {
  const url = URLExt.join(settings.baseUrl, 'figure-chat', route);
  const init: RequestInit =
    body === undefined
      ? { method: 'GET', signal }
      : {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'Content-Type': 'application/json' },
          signal
        };
  try {
    return await requestOnce<T>(url, init, signal, settings);
  } catch (error) {
    const retry =
      error instanceof FigureServerError &&
      RETRYABLE_CODES.has(error.code) &&
      (body === undefined || IDEMPOTENT_ROUTES.has(route)) &&
      !signal?.aborted;
    if (!retry) {
      throw error;
    }
    const delay = error.retryAfter
      ? Math.min(error.retryAfter * 1000, MAX_RETRY_DELAY_MS)
      : RETRY_DELAY_MS;
    await wait(delay, signal);
    return requestOnce<T>(url, init, signal, settings);
  }
}
