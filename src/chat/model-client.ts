/**
 * Talking to the model through the figure server's `model` route (which adds the API key). Yields
 * the response text as it arrives.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** A model request that failed before streaming, with the figure server's actionable message. */
export class ModelRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string
  ) {
    super(message);
    this.name = 'ModelRequestError';
  }
}

/** Sends a Chat Completions body to an endpoint and yields the streamed text. */
export type ModelTransport = (
  endpoint: string,
  body: Record<string, unknown>,
  signal: AbortSignal
) => AsyncIterable<string>;

async function errorFrom(response: Response): Promise<ModelRequestError> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string; code?: string } };
    if (parsed.error?.message) {
      return new ModelRequestError(
        response.status,
        parsed.error.message,
        parsed.error.code ?? 'error'
      );
    }
  } catch {
    // not the figure server's JSON: the proxy itself answered
  }
  return new ModelRequestError(
    response.status,
    `The figure server did not answer (HTTP ${response.status}). It restarts on the next request: try again; if it keeps failing, check the Jupyter server's log.`,
    'figure-server'
  );
}

/** The transport through `<base_url>figure-chat/model`. */
export function figureServerTransport(
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): ModelTransport {
  return async function* (endpoint, body, signal) {
    const url = URLExt.join(settings.baseUrl, 'figure-chat', 'model');
    let response: Response;
    try {
      response = await ServerConnection.makeRequest(
        url,
        {
          method: 'POST',
          body: JSON.stringify({ endpoint, body }),
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
        // The turn stopped reading early (a runaway or malformed answer): cancel the request so
        // the model server stops generating too.
        await reader.cancel().catch(() => undefined);
      }
      reader.releaseLock();
    }
  };
}
