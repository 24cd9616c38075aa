/**
 * The model proxy (`POST model`, SPEC sections 3, 5, 13, 14) through the real figure server on
 * loopback, against a fake OpenAI-compatible endpoint: chunks forwarded as they arrive (proved by
 * lock-step: the endpoint writes the next chunk only once the client has received the previous
 * one through the proxy), the API key from the server's environment only, actionable errors for
 * endpoint faults, and a client that goes away aborting the upstream request.
 */
import type { ServerResponse } from 'node:http';

import { deferred, type Deferred } from './helpers/async';
import {
  FakeEndpoint,
  closedPort,
  useFigureServer,
  type ReceivedRequest
} from './helpers/loopback';
import { DONE, textChunk } from './helpers/sse';

const KEY = 'sk-figure-chat-test-0123456789abcdef';
const OTHER_KEY = 'sk-openai-test-fedcba9876543210';

const figure = useFigureServer('figure-chat-proxy-');
let endpoint: FakeEndpoint;
const ENV_NAMES = ['FIGURE_CHAT_API_KEY', 'OPENAI_API_KEY', 'FIGURE_CHAT_ENDPOINT'] as const;
const savedEnv = ENV_NAMES.map(name => [name, process.env[name]] as const);

beforeEach(async () => {
  endpoint = await new FakeEndpoint().start();
  for (const name of ENV_NAMES) {
    delete process.env[name];
  }
});

afterEach(async () => {
  await endpoint.close();
  for (const [name, value] of savedEnv) {
    if (value === undefined) {
      delete process.env[name];
    } else {
      process.env[name] = value;
    }
  }
});

const chatBody = { model: 'm', stream: true, messages: [{ role: 'user', content: 'Hi' }] };

function proxy(body: unknown, signal?: AbortSignal): Promise<Response> {
  return figure.post('model', body, signal);
}

function viaProxy(signal?: AbortSignal): Promise<Response> {
  return proxy({ endpoint: `${endpoint.url}/v1`, body: chatBody }, signal);
}

async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  const json = (await response.json()) as { error: { code: string; message: string } };
  return json.error;
}

/** Reads a response body chunk by chunk, resolving a promise per expected piece of text. */
async function readAll(
  response: Response,
  onText: (soFar: string) => void = () => undefined
): Promise<string> {
  if (!response.body) {
    return '';
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return text + decoder.decode();
    }
    text += decoder.decode(value, { stream: true });
    onText(text);
  }
}

function sseHeaders(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  res.flushHeaders();
}

describe('POST model', () => {
  it('forwards each chunk as it arrives, without buffering', async () => {
    const chunks = [textChunk('one'), textChunk('two'), textChunk('three'), DONE];
    // received[i] resolves when the client has read chunks[0..i] through the proxy.
    const received: Array<Deferred<void>> = chunks.map(() => deferred());
    endpoint.handler = async (_request, res) => {
      sseHeaders(res);
      for (let i = 0; i < chunks.length; i++) {
        res.write(chunks[i]);
        if (i < chunks.length - 1) {
          await received[i].promise;
        }
      }
      res.end();
    };
    const response = await viaProxy();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await readAll(response, soFar => {
      chunks.forEach((_chunk, i) => {
        if (soFar === chunks.slice(0, i + 1).join('')) {
          received[i].resolve();
        }
      });
      // Never more than the endpoint has written: it waits for us.
      expect(chunks.join('').startsWith(soFar)).toBe(true);
    });
    expect(text).toBe(chunks.join(''));
    expect(endpoint.received).toHaveLength(1);
    expect(endpoint.received[0].url).toBe('/v1/chat/completions');
    expect(endpoint.received[0].method).toBe('POST');
    expect(JSON.parse(endpoint.received[0].body)).toEqual(chatBody);
    expect(endpoint.received[0].headers.accept).toBe('text/event-stream');
  }, 10_000);

  describe('API key', () => {
    const answerAndEchoNothing = (_request: ReceivedRequest, res: ServerResponse): void => {
      sseHeaders(res);
      res.end(`${textChunk('ok')}${DONE}`);
    };

    beforeEach(() => {
      // A key is sent only to the server's own endpoint.
      process.env.FIGURE_CHAT_ENDPOINT = `${endpoint.url}/v1`;
    });

    it('sends FIGURE_CHAT_API_KEY as a bearer token, ahead of OPENAI_API_KEY', async () => {
      process.env.FIGURE_CHAT_API_KEY = KEY;
      process.env.OPENAI_API_KEY = OTHER_KEY;
      endpoint.handler = answerAndEchoNothing;
      const response = await viaProxy();
      const text = await response.text();
      expect(endpoint.received[0].headers.authorization).toBe(`Bearer ${KEY}`);
      expect(text).not.toContain(KEY);
      expect(JSON.stringify([...response.headers])).not.toContain(KEY);
    });

    it('falls back to OPENAI_API_KEY, and sends no Authorization without a key', async () => {
      process.env.OPENAI_API_KEY = OTHER_KEY;
      endpoint.handler = answerAndEchoNothing;
      await (await viaProxy()).text();
      expect(endpoint.received[0].headers.authorization).toBe(`Bearer ${OTHER_KEY}`);
      delete process.env.OPENAI_API_KEY;
      await (await viaProxy()).text();
      expect(endpoint.received[1].headers).not.toHaveProperty('authorization');
    });

    it('ignores any key or Authorization the browser sends', async () => {
      process.env.FIGURE_CHAT_API_KEY = KEY;
      endpoint.handler = answerAndEchoNothing;
      const response = await fetch(`${figure.url}/figure-chat/model`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer from-the-browser' },
        body: JSON.stringify({ endpoint: `${endpoint.url}/v1`, body: chatBody, apiKey: 'nope' })
      });
      await response.text();
      expect(endpoint.received[0].headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('answers 401 with what to set, without repeating the key the endpoint echoed', async () => {
      process.env.FIGURE_CHAT_API_KEY = KEY;
      endpoint.handler = (request, res) => {
        res.writeHead(401, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: `Incorrect API key provided: ${request.headers.authorization}` }
          })
        );
      };
      const response = await viaProxy();
      expect(response.status).toBe(401);
      const raw = await response.text();
      expect(raw).not.toContain(KEY);
      const { message } = (JSON.parse(raw) as { error: { message: string } }).error;
      expect(message).toContain('answered 401: Incorrect API key provided: Bearer [API key].');
      expect(message).toContain('FIGURE_CHAT_API_KEY');
    });
  });

  describe('endpoint faults', () => {
    it('nothing listening: 502 saying no model server answered, pointing at Settings', async () => {
      const dead = await closedPort();
      const response = await proxy({ endpoint: `${dead}/v1`, body: chatBody });
      expect(response.status).toBe(502);
      const error = await errorOf(response);
      expect(error.code).toBe('unreachable');
      expect(error.message).toContain(`No model server answered at ${dead}/v1`);
      expect(error.message).toContain('Settings');
    });

    it('a kept-alive connection the server closes as the request goes out: sent again on a new one', async () => {
      // cpp-httplib (llama-server) closes an idle connection after 5 s, Node's pool keeps it about
      // 4 s by a coarse timer: under load a request can go out on a socket the server is closing.
      // The server here closes the reused socket unanswered, as that race does.
      const sockets: unknown[] = [];
      let dropped = 0;
      endpoint.handler = (_request, res) => {
        const reused = sockets.includes(res.socket);
        sockets.push(res.socket);
        if (reused) {
          dropped += 1;
          res.socket?.destroy();
          return;
        }
        sseHeaders(res);
        res.end(textChunk('ok') + DONE);
      };
      expect(await readAll(await viaProxy())).toContain('ok');
      const second = await viaProxy();
      expect(second.status).toBe(200);
      expect(await readAll(second)).toContain('ok');
      expect(dropped).toBe(1);
      expect(endpoint.received).toHaveLength(3);
    });

    it('a server that closes every connection unanswered: 502 after one retry', async () => {
      endpoint.handler = (_request, res) => {
        res.socket?.destroy();
      };
      const response = await viaProxy();
      expect(response.status).toBe(502);
      expect(await errorOf(response)).toMatchObject({ code: 'unreachable' });
      expect(endpoint.received).toHaveLength(2);
    });

    it('404: says to check the endpoint and the model name', async () => {
      endpoint.handler = (_request, res) => {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('model "m" not found');
      };
      const response = await viaProxy();
      expect(response.status).toBe(404);
      const { message } = await errorOf(response);
      expect(message).toContain('answered 404: model "m" not found');
      expect(message).toContain('Check the endpoint and the model name in Settings → Figure Chat');
    });

    it('500: passes the upstream text on', async () => {
      endpoint.handler = (_request, res) => {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'CUDA out of memory' } }));
      };
      const response = await viaProxy();
      expect(response.status).toBe(500);
      const error = await errorOf(response);
      expect(error.code).toBe('upstream');
      expect(error.message).toBe(
        `The model server at ${endpoint.url}/v1 answered 500: CUDA out of memory.`
      );
    });

    it('400 to an image request: code "rejected", so the chat can fall back to text', async () => {
      endpoint.handler = (_request, res) => {
        res.writeHead(400).end('image_url is not supported');
      };
      const response = await viaProxy();
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'rejected' });
    });

    it('stream cut mid-way: the response ends, with what had arrived', async () => {
      const first = textChunk('partial');
      const got = deferred();
      endpoint.handler = async (_request, res) => {
        sseHeaders(res);
        res.write(first);
        await got.promise;
        res.socket?.destroy();
      };
      const response = await viaProxy();
      expect(response.status).toBe(200);
      const text = await readAll(response, soFar => {
        if (soFar === first) {
          got.resolve();
        }
      });
      expect(text).toBe(first);
      expect(text).not.toContain('[DONE]');
    }, 10_000);

    it('refuses an endpoint that is not http(s) with a 400', async () => {
      // An empty endpoint is no error: it means the user has not chosen one (endpoint-default.test.ts).
      for (const bad of ['file:///etc/passwd', 'localhost:11434/v1', 42]) {
        const response = await proxy({ endpoint: bad, body: chatBody });
        expect(response.status).toBe(400);
        const error = await errorOf(response);
        expect(error.code).toBe('bad-endpoint');
        expect(error.message).toContain('Settings → Figure Chat');
      }
      expect(endpoint.received).toHaveLength(0);
    });

    it('refuses a body that is not a Chat Completions request, and GET', async () => {
      expect((await proxy({ endpoint: endpoint.url, body: [1] })).status).toBe(400);
      expect((await proxy('{not json')).status).toBe(400);
      expect((await fetch(`${figure.url}/figure-chat/model`)).status).toBe(405);
      expect(endpoint.received).toHaveLength(0);
    });
  });

  it('aborts the upstream request when the client goes away', async () => {
    const upstreamClosed = deferred<boolean>();
    const firstArrived = deferred();
    endpoint.handler = (_request, res) => {
      res.on('close', () => upstreamClosed.resolve(res.writableEnded));
      sseHeaders(res);
      res.write(textChunk('streaming'));
      // …and never ends on its own.
    };
    const client = new AbortController();
    const response = await viaProxy(client.signal);
    const reading = readAll(response, () => firstArrived.resolve());
    await firstArrived.promise;
    client.abort();
    await expect(reading).rejects.toThrow();
    // The endpoint saw its connection close before it finished the answer.
    expect(await upstreamClosed.promise).toBe(false);
  }, 10_000);
});

describe('cross-site requests', () => {
  it('refuses a POST that is not JSON and one the browser marks cross-site', async () => {
    const url = `${figure.url}/figure-chat/check-svg`;
    const body = JSON.stringify({ svg: '<svg xmlns="http://www.w3.org/2000/svg"/>' });
    const plain = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body
    });
    expect(plain.status).toBe(415);
    const crossSite = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'cross-site' },
      body
    });
    expect(crossSite.status).toBe(403);
    const sameSite = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'same-origin' },
      body
    });
    expect(sameSite.status).toBe(200);
  });
});
