/**
 * Issue 7.3: upstream bodies are bounded. Error bodies are read up to a cap with a timer; streams
 * have an idle timeout, a total time and a total size (set through the environment), and a stream
 * the proxy stops ends with an error event the chat shows. The upstream connection is closed in
 * every case. Through the real figure server against a scripted endpoint.
 */
import type { ServerResponse } from 'node:http';

import { ChatStreamAccumulator, SseDecoder } from '../chat/stream';
import { MAX_ERROR_BODY_BYTES } from '../server/model/upstream-error';

import { deferred } from './helpers/async';
import { isolateProxyEnv } from './helpers/env';
import { FakeEndpoint, useFigureServer } from './helpers/loopback';
import { DONE, textChunk } from './helpers/sse';

const figure = useFigureServer('figure-chat-limits-');
let endpoint: FakeEndpoint;

isolateProxyEnv();

beforeEach(async () => {
  endpoint = await new FakeEndpoint().start();
});

afterEach(() => endpoint.close());

function ask(): Promise<Response> {
  return figure.post('model', {
    endpoint: `${endpoint.url}/v1`,
    body: { model: 'm', stream: true, messages: [] }
  });
}

/** Resolves with the number of bytes written once the proxy closes the connection. */
function closedAfter(res: ServerResponse): Promise<number> {
  const closed = deferred<number>();
  res.on('close', () => closed.resolve(res.socket?.bytesWritten ?? -1));
  return closed.promise;
}

/** Writes `piece` for ever (respecting back-pressure) until the connection closes. */
async function endless(res: ServerResponse, piece: string, everyMs = 0): Promise<void> {
  while (!res.destroyed) {
    if (!res.write(piece)) {
      await new Promise(resolve => res.once('drain', resolve).once('close', resolve));
    }
    await new Promise(resolve => (everyMs ? setTimeout(resolve, everyMs) : setImmediate(resolve)));
  }
}

/** What the chat makes of a streamed answer: its visible text and its error, if any. */
function chatView(text: string): { text: string; error: string } {
  const decoder = new SseDecoder();
  const accumulator = new ChatStreamAccumulator();
  let visible = '';
  try {
    for (const payload of [...decoder.push(text), ...decoder.flush()]) {
      visible += accumulator.push(payload);
    }
  } catch (error) {
    return { text: visible, error: (error as Error).message };
  }
  return { text: visible, error: '' };
}

describe('error bodies', () => {
  it('an endless 500 body is read up to the cap, then the connection is closed', async () => {
    let closed: Promise<number> = Promise.resolve(0);
    endpoint.handler = (_request, res) => {
      closed = closedAfter(res);
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      void endless(res, 'x'.repeat(16 * 1024));
    };
    const started = Date.now();
    const response = await ask();
    expect(response.status).toBe(500);
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toMatch(/answered 500: x{2000}…/);
    expect(Date.now() - started).toBeLessThan(5000);
    // The endpoint stopped being read soon after the cap (socket buffers hold a few MB at most).
    expect(await closed).toBeLessThan(MAX_ERROR_BODY_BYTES + 16 * 1024 * 1024);
  }, 15_000);

  it('a stalled error body times out with what had arrived', async () => {
    process.env.FIGURE_CHAT_MODEL_IDLE_TIMEOUT = '0.5';
    let closed: Promise<number> = Promise.resolve(0);
    endpoint.handler = (_request, res) => {
      closed = closedAfter(res);
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.write('upstream gateway is thinking');
      // …and never ends.
    };
    const response = await ask();
    expect(response.status).toBe(502);
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toContain('answered 502: upstream gateway is thinking');
    await closed;
  }, 10_000);
});

describe('streams', () => {
  it('no response headers within FIGURE_CHAT_MODEL_TIMEOUT: 504 saying what to raise', async () => {
    process.env.FIGURE_CHAT_MODEL_TIMEOUT = '0.5';
    let closed: Promise<number> = Promise.resolve(0);
    endpoint.handler = (_request, res) => {
      closed = closedAfter(res);
    };
    const response = await ask();
    expect(response.status).toBe(504);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('connect-timeout');
    expect(error.message).toContain('did not start answering within 0.5 s');
    expect(error.message).toContain('FIGURE_CHAT_MODEL_TIMEOUT');
    await closed;
  }, 10_000);

  it('a silent stream stops after the idle timeout with an error the chat shows', async () => {
    process.env.FIGURE_CHAT_MODEL_IDLE_TIMEOUT = '0.5';
    let closed: Promise<number> = Promise.resolve(0);
    endpoint.handler = (_request, res) => {
      closed = closedAfter(res);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      // One chunk and half of the next, then silence.
      res.write(textChunk('partial answer') + textChunk('never finished').slice(0, 20));
    };
    const response = await ask();
    expect(response.status).toBe(200);
    const view = chatView(await response.text());
    expect(view.text).toBe('partial answer');
    expect(view.error).toContain('sent nothing for 0.5 s, so the answer was stopped');
    expect(view.error).toContain('FIGURE_CHAT_MODEL_IDLE_TIMEOUT');
    await closed;
  }, 10_000);

  it('one byte at a time never ends on its own: the total time stops it', async () => {
    process.env.FIGURE_CHAT_MODEL_MAX_DURATION = '1';
    process.env.FIGURE_CHAT_MODEL_IDLE_TIMEOUT = '5';
    let closed: Promise<number> = Promise.resolve(0);
    endpoint.handler = (_request, res) => {
      closed = closedAfter(res);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(textChunk('slow'));
      void endless(res, ':', 20);
    };
    const started = Date.now();
    const view = chatView(await (await ask()).text());
    expect(Date.now() - started).toBeLessThan(4000);
    expect(view.text).toBe('slow');
    expect(view.error).toContain('took longer than 1 s');
    expect(view.error).toContain('FIGURE_CHAT_MODEL_MAX_DURATION');
    await closed;
  }, 10_000);

  it('a stream larger than FIGURE_CHAT_MODEL_MAX_BYTES is stopped', async () => {
    process.env.FIGURE_CHAT_MODEL_MAX_BYTES = '100000';
    let closed: Promise<number> = Promise.resolve(0);
    endpoint.handler = (_request, res) => {
      closed = closedAfter(res);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      void endless(res, textChunk('more '));
    };
    const text = await (await ask()).text();
    expect(text.length).toBeLessThan(100_000 + 1000);
    expect(chatView(text).error).toContain('grew past 100,000 bytes');
    await closed;
  }, 10_000);

  it('a complete stream is untouched by the limits', async () => {
    process.env.FIGURE_CHAT_MODEL_IDLE_TIMEOUT = '0.5';
    const body = textChunk('all') + textChunk(' of it') + DONE;
    endpoint.handler = (_request, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' }).end(body);
    };
    expect(await (await ask()).text()).toBe(body);
  });

  it('a limit that is not a positive number is a clear error', async () => {
    process.env.FIGURE_CHAT_MODEL_IDLE_TIMEOUT = 'soon';
    const response = await ask();
    expect(response.status).toBe(500);
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toContain('FIGURE_CHAT_MODEL_IDLE_TIMEOUT="soon"');
    expect(endpoint.received).toHaveLength(0);
  });
});
