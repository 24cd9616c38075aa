/**
 * Figure-server requests fetched by a small worker, off the page's main thread.
 *
 * A notebook's first open keeps JupyterLab's main thread busy for about half a second (its lazy
 * chunks evaluated, the notebook and the chat built). A `fetch` on that thread needs several of its
 * tasks in turn (the response's headers, its data, the body read), and each waited behind all the
 * work queued before it: the newest view's answer, back from the figure server 232 ms after the
 * chat showed the notebook, reached our code at 440 ms (a Chrome trace of `bench/reopen.spec.ts`,
 * `FIGURE_CHAT_BENCH_TRACE`). Fetched here, the answer crosses to the page in one message.
 *
 * The worker sees nothing of the page but what each request carries: the URL, the method, the body
 * and the headers `ServerConnection.makeRequest` would add (the token, the XSRF cookie's value);
 * same-origin cookies go with it as with any fetch. Where a worker cannot run (no `Worker`, a
 * content security policy without `blob:`, a page whose `fetch` was replaced), requests go through
 * `ServerConnection.makeRequest` as before.
 */
import { ServerConnection } from '@jupyterlab/services';

/** The worker's whole program: fetch, read the body, hand it over (transferred, not copied). */
const WORKER_SOURCE = `
const controllers = new Map();
// Entries are read as each request ends; a full buffer (250 by default) would drop new ones.
performance.onresourcetimingbufferfull = () => performance.clearResourceTimings();
self.onmessage = async event => {
  const { id, abort, url, init } = event.data;
  if (abort) {
    controllers.get(id)?.abort();
    return;
  }
  const controller = new AbortController();
  controllers.set(id, controller);
  try {
    const start = performance.now();
    const response = await fetch(url, { ...init, signal: controller.signal });
    const body = await response.arrayBuffer();
    const end = performance.now();
    // The request's timing, on the page's clock (DevTools and the benchmarks read it there): the
    // newest entry for its URL, which with two requests to one route in flight may be the
    // other's (a diagnostic, not a result).
    const entry = performance.getEntriesByName(url, 'resource').pop();
    const shift = performance.timeOrigin - event.data.timeOrigin;
    const at = time => (time ? time + shift : undefined);
    const timing = {
      start: start + shift,
      end: end + shift,
      requestStart: at(entry && entry.requestStart),
      responseStart: at(entry && entry.responseStart),
      server: entry && entry.serverTiming
        ? entry.serverTiming.reduce((sum, stage) => sum + stage.duration, 0)
        : undefined
    };
    self.postMessage(
      {
        id,
        status: response.status,
        statusText: response.statusText,
        contentType: response.headers.get('Content-Type'),
        retryAfter: response.headers.get('Retry-After'),
        timing,
        body
      },
      [body]
    );
  } catch (error) {
    self.postMessage({ id, error: String((error && error.message) || error) });
  } finally {
    controllers.delete(id);
  }
};
`;

/** What the worker answers for one request. */
interface WorkerAnswer {
  readonly id: number;
  readonly error?: string;
  readonly status?: number;
  readonly statusText?: string;
  readonly contentType?: string | null;
  readonly retryAfter?: string | null;
  readonly timing?: RequestTiming;
  readonly body?: ArrayBuffer;
}

/**
 * When a request was made, sent, answered and read (page clock, ms), and the figure server's own
 * time (its `Server-Timing`): the detail of its `figure-chat request` performance measure, which
 * stands in for the page's resource timing entry a worker's request does not get.
 */
export interface RequestTiming {
  readonly start: number;
  readonly end: number;
  readonly requestStart?: number;
  readonly responseStart?: number;
  readonly server?: number;
}

/** The name of each worker request's performance measure (detail: its URL and timing). */
export const REQUEST_MEASURE = 'figure-chat request';

/** Measures kept before they are cleared (a long session makes thousands of requests). */
const MAX_MEASURES = 500;
let measures = 0;

function measure(url: string, timing: RequestTiming): void {
  if (typeof performance === 'undefined' || !performance.measure) {
    return;
  }
  if (++measures > MAX_MEASURES) {
    performance.clearMeasures(REQUEST_MEASURE);
    measures = 1;
  }
  try {
    performance.measure(REQUEST_MEASURE, {
      start: timing.start,
      end: timing.end,
      detail: { url, ...timing }
    });
  } catch {
    // A clock the page does not accept (a worker started before a navigation): no measure.
  }
}

/**
 * The parts of a `Response` the figure-server client reads. The worker's answer is one: its body
 * is already here, so reading it takes no task of the page (a `Response` made from the bytes
 * again took one more, 49 ms in the same trace).
 */
export type FetchedResponse = Pick<
  Response,
  'ok' | 'status' | 'statusText' | 'headers' | 'arrayBuffer' | 'text'
>;

interface Pending {
  readonly url: string;
  resolve(response: FetchedResponse): void;
  reject(error: unknown): void;
  /** The same request through the page's own fetch, if the worker stops before it answers. */
  fallback(): void;
}

/** The value of a cookie of the page, as `ServerConnection` reads `_xsrf`. */
function cookie(name: string): string | undefined {
  if (typeof document === 'undefined') {
    return undefined;
  }
  const match = document.cookie.match(`\\b${name}=([^;]*)\\b`);
  return match?.[1];
}

/** The worker's answer as the parts of a `Response` the client reads. */
function responseOf(answer: WorkerAnswer & { status: number }): FetchedResponse {
  const headers = new Headers();
  if (answer.contentType) {
    headers.set('Content-Type', answer.contentType);
  }
  if (answer.retryAfter) {
    headers.set('Retry-After', answer.retryAfter);
  }
  const body = answer.body ?? new ArrayBuffer(0);
  return {
    ok: answer.status >= 200 && answer.status < 300,
    status: answer.status,
    statusText: answer.statusText ?? '',
    headers,
    arrayBuffer: () => Promise.resolve(body),
    text: () => Promise.resolve(new TextDecoder().decode(body))
  };
}

/** A fetch worker, started on first use; requests go through the page's fetch where none runs. */
export class FetchWorker {
  /** The worker: undefined until first use, null where none can run (or it stopped). */
  private _worker: Worker | null | undefined;
  private readonly _pending = new Map<number, Pending>();
  private _nextId = 0;

  /** Whether requests go through the worker (false before the first request). */
  get running(): boolean {
    return !!this._worker;
  }

  /**
   * `ServerConnection.makeRequest(url, init, settings)`, fetched by the worker when it can run
   * and the settings use the page's own `fetch`; a request whose body is not a string goes
   * through the page's fetch, as does every request once the worker failed.
   */
  fetch(
    url: string,
    init: RequestInit,
    settings: ServerConnection.ISettings
  ): Promise<FetchedResponse> {
    const runner =
      settings.fetch === globalThis.fetch &&
      url.startsWith(settings.baseUrl) &&
      (init.body === undefined || init.body === null || typeof init.body === 'string')
        ? this._start()
        : null;
    if (!runner) {
      return ServerConnection.makeRequest(url, init, settings);
    }
    // The headers `ServerConnection.makeRequest` adds, built here. Handing the worker to
    // makeRequest as its `fetch` instead would add its cache-buster to every URL and turn an
    // abort into its NetworkError (a TypeError), where callers expect an AbortError.
    const headers = new Headers(settings.init.headers);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    if (settings.token) {
      headers.append('Authorization', `token ${settings.token}`);
    }
    const xsrf = cookie('_xsrf');
    if (xsrf !== undefined) {
      headers.append('X-XSRFToken', xsrf);
    }
    const id = (this._nextId += 1);
    const { signal } = init;
    return new Promise<FetchedResponse>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
        return;
      }
      const aborted = (): void => {
        this._pending.delete(id);
        runner.postMessage({ id, abort: true });
        reject(signal?.reason ?? new DOMException('aborted', 'AbortError'));
      };
      signal?.addEventListener('abort', aborted, { once: true });
      const settled =
        <T>(then: (value: T) => void) =>
        (value: T) => {
          signal?.removeEventListener('abort', aborted);
          then(value);
        };
      this._pending.set(id, {
        url,
        resolve: settled(resolve),
        reject: settled(reject),
        fallback: () => {
          signal?.removeEventListener('abort', aborted);
          ServerConnection.makeRequest(url, init, settings).then(resolve, reject);
        }
      });
      runner.postMessage({
        id,
        url,
        timeOrigin: performance.timeOrigin,
        init: {
          method: init.method ?? 'GET',
          body: init.body,
          headers: Object.fromEntries(headers.entries()),
          credentials: settings.init.credentials ?? 'same-origin',
          cache: init.cache ?? settings.init.cache
        }
      });
    });
  }

  /** Stop the worker; later requests start another. */
  dispose(): void {
    this._worker?.terminate();
    this._worker = undefined;
  }

  private _start(): Worker | null {
    if (this._worker !== undefined) {
      return this._worker;
    }
    this._worker = null;
    if (typeof Worker === 'undefined' || typeof Blob === 'undefined' || !URL.createObjectURL) {
      return null;
    }
    try {
      const source = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
      const started = new Worker(source, { name: 'figure-chat-fetch' });
      started.onmessage = (event: MessageEvent<WorkerAnswer>) => this._settle(event.data);
      started.onerror = () => this._failed(started);
      this._worker = started;
    } catch {
      this._worker = null;
    }
    return this._worker;
  }

  /**
   * The worker could not start (a content security policy without `blob:`) or failed: every
   * request still waiting, and every later one, goes through the page's own fetch.
   */
  private _failed(started: Worker): void {
    started.terminate();
    if (this._worker === started) {
      this._worker = null;
    }
    const waiting = [...this._pending.values()];
    this._pending.clear();
    waiting.forEach(request => request.fallback());
  }

  private _settle(answer: WorkerAnswer): void {
    const request = this._pending.get(answer.id);
    if (!request) {
      return;
    }
    this._pending.delete(answer.id);
    if (answer.timing) {
      measure(request.url, answer.timing);
    }
    if (answer.error !== undefined || answer.status === undefined) {
      // As the page's fetch fails: a TypeError, which the client reports as a network error.
      request.reject(new TypeError(answer.error ?? 'no answer'));
      return;
    }
    request.resolve(responseOf({ ...answer, status: answer.status }));
  }
}

/** The page's fetch worker, shared by every figure-server request. */
const pageWorker = new FetchWorker();

/** A figure-server request through the page's fetch worker (see {@link FetchWorker.fetch}). */
export function fetchOffMainThread(
  url: string,
  init: RequestInit,
  settings: ServerConnection.ISettings
): Promise<FetchedResponse> {
  return pageWorker.fetch(url, init, settings);
}
