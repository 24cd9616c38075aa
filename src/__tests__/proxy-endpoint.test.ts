/**
 * Issue 7.1: the API key goes only to the server's own endpoint. Through the real figure server
 * on loopback, with two scripted endpoints: the one the Jupyter administrator configured and one
 * the browser names.
 */
import type { ServerResponse } from 'node:http';

import {
  OPENAI_DEFAULT_ENDPOINT,
  chooseModelTarget,
  serverModelConfig
} from '../server/model/endpoint';

import { isolateProxyEnv } from './helpers/env';
import { FakeEndpoint, useFigureServer } from './helpers/loopback';
import { DONE, textChunk } from './helpers/sse';

const KEY = 'sk-admin-key-0123456789abcdef';

const figure = useFigureServer('figure-chat-endpoint-');
let configured: FakeEndpoint;
let other: FakeEndpoint;

isolateProxyEnv();

const answer = (_request: unknown, res: ServerResponse): void => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  res.end(`${textChunk('ok')}${DONE}`);
};

beforeEach(async () => {
  configured = await new FakeEndpoint().start();
  other = await new FakeEndpoint().start();
  configured.handler = answer;
  other.handler = answer;
});

afterEach(async () => {
  await configured.close();
  await other.close();
});

const chatBody = { model: 'm', stream: true, messages: [{ role: 'user', content: 'Hi' }] };

async function ask(endpoint: unknown): Promise<Response> {
  const response = await figure.post('model', { endpoint, body: chatBody });
  await response.clone().text();
  return response;
}

describe('with a key', () => {
  beforeEach(() => {
    process.env.FIGURE_CHAT_API_KEY = KEY;
    process.env.FIGURE_CHAT_ENDPOINT = `${configured.url}/v1/`;
  });

  it('a browser endpoint on another origin never gets the key: the configured one answers', async () => {
    for (const named of [`${other.url}/v1`, `${other.url.replace('http:', 'https:')}/v1`]) {
      expect((await ask(named)).status).toBe(200);
    }
    // Another port on the same host is another origin too.
    expect(other.received).toHaveLength(0);
    // When the configured endpoint fails, the message says where the request went, and why.
    configured.handler = (_request, res) => {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'model "m" not found' } }));
    };
    const failed = await ask(`${other.url}/v1`);
    const { message } = ((await failed.json()) as { error: { message: string } }).error;
    expect(message).toContain(`answered 404: model "m" not found.`);
    expect(message).toContain(
      `Figure Chat sent this to ${configured.url}/v1 (FIGURE_CHAT_ENDPOINT on the Jupyter server), not to ${other.url}/v1 from Settings`
    );
    expect(configured.received).toHaveLength(3);
    for (const request of configured.received) {
      expect(request.url).toBe('/v1/chat/completions');
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    }
  });

  it('a path outside the base, a query or a fragment never carries the key', async () => {
    // The attack of the issue: another path with a query and a fragment.
    const refused = await ask(`${configured.url}/internal/admin?x=1#`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('bad-endpoint');
    for (const bad of [
      `${configured.url}/v1%2f..%2fadmin`,
      `http://user:pw@127.0.0.1:${new URL(configured.url).port}/v1`
    ]) {
      expect((await ask(bad)).status).toBe(400);
    }
    expect(configured.received).toHaveLength(0);
    // Same origin but outside the base path: the configured endpoint is used instead.
    expect((await ask(`${configured.url}/internal/v1`)).status).toBe(200);
    expect(configured.received.map(request => request.url)).toEqual(['/v1/chat/completions']);
  });

  it('a browser endpoint under the configured base is honoured, with the key', async () => {
    expect((await ask(`${configured.url}/v1/team-a`)).status).toBe(200);
    expect(configured.received[0].url).toBe('/v1/team-a/chat/completions');
    expect(configured.received[0].headers.authorization).toBe(`Bearer ${KEY}`);
    // No endpoint from the browser at all: the configured one.
    expect((await ask(undefined)).status).toBe(200);
    expect(configured.received[1].url).toBe('/v1/chat/completions');
  });

  it('a redirect is not followed, so it cannot lead the key elsewhere', async () => {
    configured.handler = (_request, res) => {
      res.writeHead(307, { Location: `${other.url}/v1/chat/completions` }).end();
    };
    const response = await ask(`${configured.url}/v1`);
    expect(response.status).toBe(502);
    expect(other.received).toHaveLength(0);
  });

  it('FIGURE_CHAT_API_KEY without FIGURE_CHAT_ENDPOINT: says what to set, sends nothing', async () => {
    delete process.env.FIGURE_CHAT_ENDPOINT;
    const response = await ask(`${other.url}/v1`);
    expect(response.status).toBe(500);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('no-server-endpoint');
    expect(error.message).toContain('Set FIGURE_CHAT_ENDPOINT');
    expect(error.message).not.toContain(KEY);
    expect(other.received).toHaveLength(0);
  });
});

describe('without a key', () => {
  it("the browser's endpoint is used, with no Authorization", async () => {
    process.env.FIGURE_CHAT_ENDPOINT = `${configured.url}/v1`;
    expect((await ask(`${other.url}/v1`)).status).toBe(200);
    expect(other.received).toHaveLength(1);
    expect(other.received[0].headers).not.toHaveProperty('authorization');
    expect(configured.received).toHaveLength(0);
  });
});

describe('the server endpoint from the environment', () => {
  it('OPENAI_API_KEY alone means OpenAI (or OPENAI_BASE_URL), as the OpenAI SDK does', () => {
    const openai = chooseModelTarget(
      'http://127.0.0.1:9/v1',
      serverModelConfig({ OPENAI_API_KEY: KEY })
    );
    expect(openai).toMatchObject({
      url: `${OPENAI_DEFAULT_ENDPOINT}/chat/completions`,
      endpoint: OPENAI_DEFAULT_ENDPOINT,
      key: KEY
    });
    const based = chooseModelTarget(
      undefined,
      serverModelConfig({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' })
    );
    expect(based.url).toBe('http://127.0.0.1:8000/v1/chat/completions');
    // FIGURE_CHAT_ENDPOINT wins over both.
    const own = serverModelConfig({
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
      FIGURE_CHAT_ENDPOINT: 'http://127.0.0.1:9000/v1/chat/completions'
    });
    expect(own.endpoint?.href).toBe('http://127.0.0.1:9000/v1');
  });

  it('a malformed FIGURE_CHAT_ENDPOINT is a clear error naming it', () => {
    expect(() => serverModelConfig({ FIGURE_CHAT_ENDPOINT: 'localhost:11434' })).toThrow(
      /FIGURE_CHAT_ENDPOINT .* restart Jupyter/
    );
  });
});
