/**
 * Loopback servers for the model proxy tests: the real figure server and a fake OpenAI-compatible
 * endpoint whose behaviour each test scripts. Nothing listens beyond 127.0.0.1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createFigureServer } from '../../server/app';

/** A request the fake endpoint received. */
export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** What a test makes the fake endpoint do with one request. */
export type EndpointHandler = (
  request: ReceivedRequest,
  res: ServerResponse,
  req: IncomingMessage
) => void | Promise<void>;

/** Start a server on 127.0.0.1 at a free port; resolves with its base URL. */
export async function listenLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stop a server, cutting any connection still open. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>(resolve => server.close(() => resolve()));
}

/** A fake OpenAI-compatible endpoint. */
export class FakeEndpoint {
  readonly server: Server;
  readonly received: ReceivedRequest[] = [];
  url = '';
  handler: EndpointHandler = (_request, res) => {
    res.writeHead(500).end('no handler');
  };

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request: ReceivedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8')
        };
        this.received.push(request);
        Promise.resolve(this.handler(request, res, req)).catch((error: unknown) => {
          res.destroy(error instanceof Error ? error : undefined);
        });
      });
    });
  }

  async start(): Promise<this> {
    this.url = await listenLoopback(this.server);
    return this;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

/** The real figure server on loopback. */
export async function startFigureServer(root: string): Promise<{ server: Server; url: string }> {
  const server = createFigureServer({ root, hideHidden: true });
  // Tests that block the event loop for seconds (pure split loops) outlast Node's 5 s keep-alive:
  // the idle socket's close then races the next request reusing it ("fetch failed").
  server.keepAliveTimeout = 60_000;
  return { server, url: await listenLoopback(server) };
}

/** A test file's figure server (see {@link useFigureServer}). */
export interface TestFigureServer {
  readonly url: string;
  /** The workspace root it serves pictures from. */
  readonly root: string;
  /**
   * POST to a route as the browser does: `body` as JSON, or sent as it is when it is a string
   * (to send malformed JSON).
   */
  post(route: string, body: unknown, signal?: AbortSignal): Promise<Response>;
}

/**
 * The real figure server on a fresh temporary root for a whole test file: started before its
 * tests, closed and its root removed after them. Read `url` inside tests.
 */
export function useFigureServer(prefix: string): TestFigureServer {
  let root = '';
  let running: { server: Server; url: string } | undefined;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), prefix));
    running = await startFigureServer(root);
  });
  afterAll(async () => {
    if (running) {
      await closeServer(running.server);
    }
    rmSync(root, { recursive: true, force: true });
  });
  const figure: TestFigureServer = {
    get url(): string {
      if (!running) {
        throw new Error('the figure server is only running inside the tests');
      }
      return running.url;
    },
    get root(): string {
      return root;
    },
    post(route, body, signal) {
      return fetch(`${figure.url}/figure-chat/${route}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
        signal
      });
    }
  };
  return figure;
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<string> {
  const server = createServer();
  const url = await listenLoopback(server);
  await closeServer(server);
  return url;
}

/** A figure-server route answered with an error status; its message is the server's. */
export class RouteError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message);
    this.name = 'RouteError';
  }
}

/**
 * POST `body` to the figure server's `route` at `base`, as the browser's client does: bytes for an
 * `application/octet-stream` answer, else the JSON; a `RouteError` for an error status.
 * `onStatus` sees every answer's status.
 */
export async function postRoute<T>(
  base: string,
  route: string,
  body: unknown,
  signal: AbortSignal,
  onStatus: (status: number) => void = () => undefined
): Promise<T> {
  const response = await fetch(`${base}/figure-chat/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal
  });
  onStatus(response.status);
  if (response.ok && response.headers.get('Content-Type') === 'application/octet-stream') {
    return new Uint8Array(await response.arrayBuffer()) as T;
  }
  const data = (await response.json()) as T & { error?: { message: string } };
  if (!response.ok) {
    throw new RouteError(response.status, data.error?.message ?? String(response.status));
  }
  return data;
}
