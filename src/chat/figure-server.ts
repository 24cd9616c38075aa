/**
 * The one helper for the figure server's JSON routes (`<base_url>figure-chat/<route>`).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** A figure-server request that failed, with its actionable message. */
export class FigureServerError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string
  ) {
    super(message);
    this.name = 'FigureServerError';
  }
}

/** POST JSON to a figure-server route (GET when `body` is undefined) and parse the JSON answer. */
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
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
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
  const text = await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    throw new FigureServerError(
      response.status,
      `The figure server answered ${response.status} with something that is not JSON; it restarts on the next request, so try again.`,
      'figure-server'
    );
  }
  if (!response.ok) {
    const error = (data as { error?: { message?: string; code?: string } }).error;
    throw new FigureServerError(
      response.status,
      error?.message ?? `The figure server answered ${response.status}.`,
      error?.code ?? 'error'
    );
  }
  return data as T;
}
