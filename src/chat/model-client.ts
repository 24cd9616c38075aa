/**
 * Talking to the model through the figure server's `model` route (which adds the API key). Yields
 * the response text as it arrives.
 *
 * Each request carries an id. jupyter-server-proxy does not pass on a browser that goes away, so
 * on Stop the figure server is asked to cancel that id (`POST model-cancel`), which closes the
 * connection to the model server: a one-request-at-a-time local server stops generating.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { FigureServerError, readErrorAnswer } from '../tools/figure-client';

/**
 * A model request that failed before streaming: a failure of the figure server's `model` route,
 * with its actionable message.
 * `code` says why: `rejected` (400/415/422), `upstream`, `unreachable`, `connect-timeout`,
 * `no-server-endpoint` (a key is configured without FIGURE_CHAT_ENDPOINT), `bad-endpoint`,
 * `busy` (retry after `retryAfter` seconds), `figure-server` (restarting), `network`.
 */
export class ModelRequestError extends FigureServerError {
  constructor(...args: ConstructorParameters<typeof FigureServerError>) {
    super(...args);
    this.name = 'ModelRequestError';
  }
}

/** A random request id (`crypto.randomUUID` needs a secure context; Jupyter may be plain http). */
export function newModelRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, byte => byte.toString(16).padStart(2, '0')).join('');
}

/** Sends a Chat Completions body to an endpoint and yields the streamed text. */
export type ModelTransport = (
  endpoint: string,
  body: Record<string, unknown>,
  signal: AbortSignal
) => AsyncIterable<string>;

async function errorFrom(response: Response): Promise<ModelRequestError> {
  const text = await response.text().catch(() => '');
  let data: unknown = null;
  try {
    data = JSON.parse(text);
  } catch {
    // not the figure server's JSON: Jupyter's proxy answered for it (an HTML 500 or 599)
  }
  const error = readErrorAnswer(data);
  if (error?.message) {
    return new ModelRequestError(response.status, error.message, error.code, error.retryAfter);
  }
  return new ModelRequestError(
    response.status,
    `The figure server is restarting… (Jupyter answered HTTP ${response.status} for it). Try again in a moment; if it keeps failing, check the Jupyter server's log.`,
    'figure-server'
  );
}

/** Ask the figure server to cancel a model request; best effort, never throws. */
function cancelModelRequest(id: string, settings: ServerConnection.ISettings): void {
  const url = URLExt.join(settings.baseUrl, 'figure-chat', 'model-cancel');
  ServerConnection.makeRequest(
    url,
    {
      method: 'POST',
      body: JSON.stringify({ id }),
      headers: { 'Content-Type': 'application/json' }
    },
    settings
  ).catch(() => undefined);
}

/** The transport through `<base_url>figure-chat/model`. */
export function figureServerTransport(
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): ModelTransport {
  return async function* (endpoint, body, signal) {
    const url = URLExt.join(settings.baseUrl, 'figure-chat', 'model');
    const id = newModelRequestId();
    const cancel = (): void => cancelModelRequest(id, settings);
    signal.addEventListener('abort', cancel);
    try {
      yield* stream(url, id, endpoint, body, signal, settings);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  };
}

async function* stream(
  url: string,
  id: string,
  endpoint: string,
  body: Record<string, unknown>,
  signal: AbortSignal,
  settings: ServerConnection.ISettings
): AsyncGenerator<string> {
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(
      url,
      {
        method: 'POST',
        body: JSON.stringify({ endpoint, body, id }),
        headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' },
        signal
      },
      settings
    );
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    throw new ModelRequestError(
      0,
      `Could not reach the Jupyter server: ${(error as Error).message}. Check that it is still running.`,
      'network'
    );
  }
  if (!response.ok) {
    throw await errorFrom(response);
  }
  if (!response.body) {
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      yield decoder.decode(value, { stream: true });
    }
    const rest = decoder.decode();
    if (rest) {
      yield rest;
    }
  } finally {
    if (!finished) {
      // The turn stopped reading early (a runaway or malformed answer, or Stop): cancel the
      // request so the model server stops generating too. Cancelling the reader is not
      // enough through jupyter-server-proxy, so the figure server is asked by id as well.
      if (!signal.aborted) {
        cancelModelRequest(id, settings);
      }
      await reader.cancel().catch(() => undefined);
    }
    reader.releaseLock();
  }
}
