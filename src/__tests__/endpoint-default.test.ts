/**
 * Issue 33.2: the Jupyter server's endpoint is the default. A browser that has not chosen an
 * endpoint sends an empty one, and the figure server uses the administrator's (key or no key); an
 * endpoint the user chose is still honoured without a key; errors name the endpoint in force and
 * where it came from. Through the real figure server on loopback, and the browser's view of the
 * same rule.
 */
import type { ServerResponse } from 'node:http';

import {
  LOCAL_DEFAULT_ENDPOINT,
  chooseModelTarget,
  serverModelConfig
} from '../server/model/endpoint';
import {
  defaultSettings,
  describeEndpointInForce,
  endpointInForce,
  parseServerEndpoint
} from '../chat/settings';

import { isolateProxyEnv } from './helpers/env';
import { FakeEndpoint, closedPort, useFigureServer } from './helpers/loopback';
import { DONE, textChunk } from './helpers/sse';

const KEY = 'sk-admin-key-0123456789abcdef';

const figure = useFigureServer('figure-chat-endpoint-default-');
let admin: FakeEndpoint;
let own: FakeEndpoint;

isolateProxyEnv();

const answer = (_request: unknown, res: ServerResponse): void => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  res.end(`${textChunk('ok')}${DONE}`);
};

beforeEach(async () => {
  admin = await new FakeEndpoint().start();
  own = await new FakeEndpoint().start();
  admin.handler = answer;
  own.handler = answer;
});

afterEach(async () => {
  await admin.close();
  await own.close();
  delete process.env.FIGURE_CHAT_ENDPOINT_SOURCE;
});

const chatBody = { model: 'm', stream: true, messages: [{ role: 'user', content: 'Hi' }] };

async function ask(endpoint: string): Promise<Response> {
  const response = await figure.post('model', { endpoint, body: chatBody });
  await response.clone().text();
  return response;
}

describe("the settings' default is empty: the user has not chosen", () => {
  it('is what the browser sends until the user sets an endpoint', () => {
    expect(defaultSettings().endpoint).toBe('');
  });
});

describe('the server has an endpoint and no key', () => {
  beforeEach(() => {
    process.env.FIGURE_CHAT_ENDPOINT = `${admin.url}/v1`;
  });

  it("an empty setting goes to the server's endpoint", async () => {
    expect((await ask('')).status).toBe(200);
    expect(admin.received).toHaveLength(1);
    expect(admin.received[0].url).toBe('/v1/chat/completions');
    expect(admin.received[0].headers).not.toHaveProperty('authorization');
  });

  it("the user's own endpoint is still honoured", async () => {
    expect((await ask(`${own.url}/v1`)).status).toBe(200);
    expect(own.received).toHaveLength(1);
    expect(admin.received).toHaveLength(0);
  });

  it('model-info probes the endpoint in force', async () => {
    const response = await figure.post('model-info', { endpoint: '', model: 'm' });
    expect(response.status).toBe(200);
    expect(admin.received.length).toBeGreaterThan(0);
  });
});

describe('the server has an endpoint and a key', () => {
  it("an empty setting goes to the server's endpoint, with the key", async () => {
    process.env.FIGURE_CHAT_ENDPOINT = `${admin.url}/v1`;
    process.env.FIGURE_CHAT_API_KEY = KEY;
    expect((await ask('')).status).toBe(200);
    expect(admin.received).toHaveLength(1);
    expect(admin.received[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe('errors name the endpoint in force and where it came from', () => {
  it('FIGURE_CHAT_ENDPOINT', async () => {
    const closed = await closedPort();
    process.env.FIGURE_CHAT_ENDPOINT = `${closed}/v1`;
    const response = await ask('');
    expect(response.status).toBe(502);
    const { error } = (await response.json()) as { error: { message: string } };
    expect(error.message).toContain(
      `${closed}/v1 (from FIGURE_CHAT_ENDPOINT on the Jupyter server)`
    );
    expect(error.message).toContain('Jupyter administrator');
  });

  it('c.FigureChat.endpoint, which reaches the figure server as FIGURE_CHAT_ENDPOINT', async () => {
    const closed = await closedPort();
    process.env.FIGURE_CHAT_ENDPOINT = `${closed}/v1`;
    process.env.FIGURE_CHAT_ENDPOINT_SOURCE = 'config';
    const { error } = (await (await ask('')).json()) as { error: { message: string } };
    expect(error.message).toContain(
      "(from c.FigureChat.endpoint in the Jupyter server's configuration)"
    );
  });

  it('the user setting', async () => {
    const closed = await closedPort();
    const { error } = (await (await ask(`${closed}/v1`)).json()) as { error: { message: string } };
    expect(error.message).toContain(`No model server answered at ${closed}/v1 (`);
    expect(error.message).toContain('change the endpoint in Settings → Figure Chat');
    expect(error.message).toContain("leave it empty to use the Jupyter server's");
  });

  it('neither: a local Ollama, said to be the default', () => {
    const target = chooseModelTarget('', serverModelConfig({}));
    expect(target.endpoint).toBe(LOCAL_DEFAULT_ENDPOINT);
    expect(target.label).toContain('(from the default: no endpoint in Settings');
    expect(chooseModelTarget('  ', serverModelConfig({})).source).toBe('default');
  });
});

describe("the browser's view of the same rule", () => {
  const server = parseServerEndpoint(
    JSON.stringify({
      endpoint: 'http://vllm:8000/v1',
      source: 'FIGURE_CHAT_ENDPOINT',
      hasKey: false
    })
  );

  it("names the server's endpoint and its source when the setting is empty", () => {
    expect(describeEndpointInForce(endpointInForce('', server))).toBe(
      'In force: http://vllm:8000/v1 (from FIGURE_CHAT_ENDPOINT on the Jupyter server).'
    );
  });

  it("names the user's endpoint without a key, and says it is overridden with one", () => {
    expect(endpointInForce('http://mine:1/v1', server)).toEqual({
      endpoint: 'http://mine:1/v1',
      from: 'Settings → Figure Chat'
    });
    const keyed = { ...server, hasKey: true };
    expect(endpointInForce('http://mine:1/v1', keyed).endpoint).toBe('http://vllm:8000/v1');
    expect(endpointInForce('http://mine:1/v1', keyed).overridden).toContain('not used');
    expect(endpointInForce('http://vllm:8000/v1/', keyed).overridden).toBeUndefined();
  });

  it('reads a missing or malformed page option as "the server names none"', () => {
    for (const option of [
      '',
      '{',
      '{"endpoint": 3}',
      '{"endpoint":"x","source":null,"hasKey":true}'
    ]) {
      expect(endpointInForce('', parseServerEndpoint(option)).endpoint).toBe(
        'http://localhost:11434/v1'
      );
    }
  });
});
