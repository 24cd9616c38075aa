/**
 * The figure server: one Node HTTP server on a Unix socket (or, for tests, loopback), answering
 * the routes of `routes.ts` under any prefix that ends in `figure-chat/<route>` or `/<route>`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import {
  HttpError,
  drainRequest,
  readJson,
  sendError,
  sendJson,
  sendResult,
  trackRequestBytes,
  type RouteContext
} from './http/http';
import { jsonRoutes, rawRoutes } from './routes';
import { FIGURE_CHAT_VERSION } from './version';

/** How the server is set up. */
export interface FigureServerOptions {
  /** The Jupyter root that workspace picture paths resolve against. */
  root: string;
  /** Whether hidden files are refused as pictures. */
  hideHidden: boolean;
}

/** The route name of a request path: its last segment. */
export function routeName(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0];
  const segments = path.split('/').filter(Boolean);
  return segments[segments.length - 1] ?? '';
}

/**
 * jupyter-server-proxy leaves cross-site request checks to the proxied app. A hostile page could
 * otherwise make the browser POST with the user's Jupyter cookie (and so spend the API key on an
 * endpoint of its choosing): POSTs must be JSON, which a cross-site form cannot send without a
 * preflight, and requests the browser marks cross-site are refused.
 */
export function refuseCrossSite(req: IncomingMessage): void {
  if (req.headers['sec-fetch-site'] === 'cross-site') {
    throw new HttpError(403, 'Cross-site requests to the figure server are refused.', 'cross-site');
  }
  const type = String(req.headers['content-type'] ?? '');
  if (req.method === 'POST' && !/^application\/json\b/i.test(type)) {
    throw new HttpError(
      415,
      'Figure server requests must be sent as application/json.',
      'bad-type'
    );
  }
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  options: FigureServerOptions
): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) {
      abort.abort();
    }
  });
  const ctx: RouteContext = {
    root: options.root,
    hideHidden: options.hideHidden,
    signal: abort.signal
  };
  refuseCrossSite(req);
  const name = routeName(req.url);
  if (name === 'version' || name === '') {
    sendJson(res, 200, { name: 'figure-chat', version: FIGURE_CHAT_VERSION });
    return;
  }
  const raw = rawRoutes[name];
  if (raw) {
    await raw(req, res, ctx);
    return;
  }
  const route = jsonRoutes[name];
  if (!route) {
    throw new HttpError(404, `The figure server has no route "${name}".`, 'not-found');
  }
  if (req.method !== 'POST') {
    throw new HttpError(405, `Use POST for ${name}.`);
  }
  sendResult(res, await route(await readJson(req), ctx));
}

/**
 * Answer an error. A refusal sent before the body was read (wrong type, unknown route, too large,
 * busy) first reads the rest of the body up to a cap: jupyter-server-proxy fails with a broken
 * pipe when the answer arrives while it is still sending, and shows the user an HTML 500.
 */
async function answerError(
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown
): Promise<void> {
  if (!res.headersSent && !(await drainRequest(req))) {
    // Past the cap: answer anyway, and do not pretend the connection can be reused.
    res.setHeader('Connection', 'close');
  }
  sendError(res, error);
}

/** Create (but do not start) the figure server. */
export function createFigureServer(options: FigureServerOptions): Server {
  return createServer((req, res) => {
    const release = trackRequestBytes(req);
    handle(req, res, options)
      .catch(error => answerError(req, res, error))
      .catch(error => sendError(res, error))
      .finally(release);
  });
}
