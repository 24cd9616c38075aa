/**
 * Issue 7.4: Stop reaches the model. jupyter-server-proxy does not pass on a browser that goes
 * away, so the chat's transport names each request with an id and asks `model-cancel` for it.
 * Through the real figure server on loopback, with a scripted endpoint that never finishes; the
 * browser side talks through a fetch that, like Jupyter's proxy, keeps the figure server's
 * connection open when the browser drops its own (tests/test_figure_server.py does the same
 * through a real Jupyter).
 */

import { ServerConnection } from '@jupyterlab/services';

import { figureServerTransport } from '../chat/model-client';
import { runningModelRequests } from '../server/model/cancel';

import { deferred, type Deferred } from './helpers/async';
import { isolateProxyEnv } from './helpers/env';
import { FakeEndpoint, useFigureServer } from './helpers/loopback';
import { textChunk } from './helpers/sse';

const figure = useFigureServer('figure-chat-cancel-');
let endpoint: FakeEndpoint;
let upstreamClosed: Deferred<number>;

isolateProxyEnv();

beforeEach(async () => {
  endpoint = await new FakeEndpoint().start();
  upstreamClosed = deferred<number>();
  endpoint.handler = (_request, res) => {
    res.on('close', () => upstreamClosed.resolve(Date.now()));
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write(textChunk('thinking'));
    // …and generates for ever, as an abandoned local model would.
  };
});

afterEach(() => endpoint.close());

/**
 * A fetch that behaves as jupyter-server-proxy does for the figure server: when the browser's
 * request is aborted, the browser's side fails, but the connection to the figure server stays
 * open. Requests it made are listed in `sent`.
 */
function throughJupyterLikeProxy(sent: string[]): typeof fetch {
  return async (input: RequestInfo | URL) => {
    const request = input as Request;
    sent.push(new URL(request.url).pathname);
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.method === 'GET' ? undefined : await request.text()
    });
    const outer = request.signal;
    if (!response.body) {
      return response;
    }
    const inner = response.body.getReader();
    const aborted = new Promise<never>((_resolve, reject) => {
      outer.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    });
    aborted.catch(() => undefined);
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await Promise.race([inner.read(), aborted]);
        if (next.done) {
          controller.close();
        } else {
          controller.enqueue(next.value);
        }
      }
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

function settings(sent: string[]): ServerConnection.ISettings {
  return ServerConnection.makeSettings({
    baseUrl: `${figure.url}/`,
    fetch: throughJupyterLikeProxy(sent)
  });
}

it('Stop in the chat closes the model connection within 1 s, though the proxy keeps ours', async () => {
  const sent: string[] = [];
  const transport = figureServerTransport(settings(sent));
  const stop = new AbortController();
  const chunks = transport(`${endpoint.url}/v1`, { model: 'm', stream: true }, stop.signal);
  const reading = (async () => {
    for await (const chunk of chunks) {
      if (chunk.includes('thinking')) {
        stop.abort();
      }
    }
  })();
  await expect(reading).rejects.toThrow();
  const stoppedAt = Date.now();
  const closedAt = await upstreamClosed.promise;
  expect(closedAt - stoppedAt).toBeLessThan(1000);
  expect(sent).toEqual(['/figure-chat/model', '/figure-chat/model-cancel']);
  expect(runningModelRequests()).toBe(0);
}, 10_000);

describe('POST model-cancel', () => {
  const ask = (id: string): Promise<Response> =>
    figure.post('model', { endpoint: `${endpoint.url}/v1`, body: { model: 'm' }, id });

  it('cancels a running request by id; the client connection may stay open', async () => {
    const id = 'request-0123456789';
    const response = await ask(id);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('thinking');
    const cancelled = await figure.post('model-cancel', { id });
    expect(await cancelled.json()).toEqual({ cancelled: true });
    const cancelAt = Date.now();
    expect((await upstreamClosed.promise) - cancelAt).toBeLessThan(1000);
    // The browser's stream ends too.
    while (!(await reader.read()).done) {
      // drain
    }
  }, 10_000);

  it('a cancel that arrives before its request stops that request at once', async () => {
    const id = 'early-0123456789';
    expect(await (await figure.post('model-cancel', { id })).json()).toEqual({ cancelled: false });
    const response = await ask(id);
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('cancelled');
    expect(endpoint.received).toHaveLength(0);
  });

  it('refuses a malformed id and a second request with a running id', async () => {
    expect((await figure.post('model-cancel', { id: '../x' })).status).toBe(400);
    expect((await figure.post('model', { endpoint: endpoint.url, body: {}, id: 7 })).status).toBe(
      400
    );
    const id = 'twice-0123456789';
    const first = await ask(id);
    const second = await ask(id);
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('duplicate-id');
    await figure.post('model-cancel', { id });
    await first.text();
  }, 10_000);
});
