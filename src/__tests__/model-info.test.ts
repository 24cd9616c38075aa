/**
 * Images silently dropped (issue 8, item 2): Ollama answers 200 to image requests for a text-only
 * model and drops the images. The figure server's `model-info` route asks the server once per
 * model (Ollama `/api/show`, llama.cpp `/props`, LM Studio `/api/v0/models`), from recorded
 * answers; the chat then describes the views in text, with the notice, and sends no images.
 */
import { ServerConnection } from '@jupyterlab/services';
import { z } from 'zod';

import { NOTICES, VIEWS_NOT_SENT_TEXT, runTurn, type AgentDeps } from '../chat/agent';
import { Conversation } from '../chat/conversation';
import { figureServerTransport } from '../chat/model-client';
import { ModelQuirkMemory } from '../chat/model-quirks';
import { ToolRegistry } from '../tools/registry';
import type { StoredMessage, ToolMessage } from '../tools/transcript';
import { FakeEndpoint, useFigureServer } from './helpers/loopback';
import { loadServerFixture, type ServerFixture } from './helpers/server-fixtures';
import { answer, toolCalls } from './helpers/sse';

const figure = useFigureServer('figure-chat-model-info-');
let endpoint: FakeEndpoint;

beforeEach(async () => {
  endpoint = await new FakeEndpoint().start();
});

afterEach(async () => {
  await endpoint.close();
});

/** Answer each path with a fixture; chat completions take the next of `replies`. */
function serve(paths: Record<string, string>, replies: string[][] = []): void {
  const queue = [...replies];
  endpoint.handler = (request, res) => {
    const path = request.url.split('?')[0];
    let fixture: ServerFixture | undefined;
    if (path === '/v1/chat/completions') {
      const next = queue.shift();
      fixture = next && {
        name: 'scripted',
        status: 200,
        contentType: 'text/event-stream',
        body: next.join('')
      };
    } else if (paths[path]) {
      fixture = loadServerFixture(paths[path]);
    }
    if (!fixture) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('404 page not found');
      return;
    }
    res.writeHead(fixture.status, { 'Content-Type': fixture.contentType }).end(fixture.body);
  };
}

async function askInfo(model: string): Promise<{ images: boolean | null; source: string | null }> {
  const response = await figure.post('model-info', { endpoint: `${endpoint.url}/v1`, model });
  expect(response.status).toBe(200);
  return (await response.json()) as { images: boolean | null; source: string | null };
}

describe('model-info', () => {
  it.each([
    [{ '/api/show': 'ollama-0.12.3.api-show-text-only.http' }, { images: false, source: 'ollama' }],
    [{ '/api/show': 'ollama-0.12.3.api-show-vision.http' }, { images: true, source: 'ollama' }],
    [
      {
        '/api/show': 'ollama-0.12.3.api-show-not-found.http',
        '/props': 'llama.cpp-b5500.props-text-only.http'
      },
      { images: false, source: 'llama.cpp' }
    ],
    [
      { '/api/v0/models/qwen2.5-7b-instruct': 'lmstudio-0.3.15.api-v0-model-llm.http' },
      { images: false, source: 'lmstudio' }
    ],
    [{}, { images: null, source: null }]
  ])('%j → %j', async (paths, expected) => {
    serve(paths);
    expect(await askInfo('qwen2.5-7b-instruct')).toEqual(expected);
  });

  it('asks Ollama about the model named, and sends no credentials', async () => {
    process.env.FIGURE_CHAT_API_KEY = 'sk-never-sent-0123456789';
    try {
      serve({ '/api/show': 'ollama-0.12.3.api-show-text-only.http' });
      await askInfo('gemma3:1b');
    } finally {
      delete process.env.FIGURE_CHAT_API_KEY;
    }
    expect(endpoint.received[0]).toMatchObject({ method: 'POST', url: '/api/show' });
    expect(JSON.parse(endpoint.received[0].body)).toEqual({ model: 'gemma3:1b' });
    expect(endpoint.received[0].headers.authorization).toBeUndefined();
  });

  it('refuses a request without an http(s) endpoint', async () => {
    const response = await figure.post('model-info', {
      endpoint: 'file:///etc/passwd',
      model: 'x'
    });
    expect(response.status).toBe(400);
  });
});

describe('the chat asks once per model before sending views', () => {
  function deps(model: string, quirks: ModelQuirkMemory): AgentDeps {
    const registry = new ToolRegistry();
    registry.register({
      name: 'viewer',
      description: 'Renders a view',
      input: z.object({}),
      mutates: false,
      run: async () => ({
        status: 'completed',
        text: 'Rendered the map.',
        images: [{ png: 'iVBORw0KGgo', width: 1, height: 1, caption: 'map' }]
      })
    });
    return {
      registry,
      transport: figureServerTransport(
        ServerConnection.makeSettings({ baseUrl: `${figure.url}/` })
      ),
      settings: {
        endpoint: `${endpoint.url}/v1`,
        model,
        contextBudget: 100_000,
        maxToolRounds: 4,
        acceptsImages: 'auto'
      },
      toolHost: null,
      quirks,
      modelTakesImages: async (url, name, signal) => {
        const response = await figure.post('model-info', { endpoint: url, model: name }, signal);
        return ((await response.json()) as { images: boolean | null }).images;
      }
    };
  }

  const viewer = toolCalls([{ id: 'v1', name: 'viewer', arguments: {} }]);
  const completions = (): string[] =>
    endpoint.received.filter(r => r.url === '/v1/chat/completions').map(r => r.body);

  it('a text-only Ollama model gets the views in text, with the notice', async () => {
    serve({ '/api/show': 'ollama-0.12.3.api-show-text-only.http' }, [
      viewer,
      answer('Read as text.'),
      viewer,
      answer('Again.')
    ]);
    const conversation = new Conversation();
    const quirks = new ModelQuirkMemory();
    await runTurn(conversation, deps('gemma3:1b', quirks), 'Look', [], never);
    expect(completions().map(body => body.includes('"image_url"'))).toEqual([false, false]);
    expect(conversation.notice).toBe(NOTICES.images);
    const result = conversation.entries.find(
      (m): m is ToolMessage => m.role === 'tool'
    ) as ToolMessage;
    expect(result.content).toBe(`Rendered the map.${VIEWS_NOT_SENT_TEXT}`);
    // Asked once per model, not per turn.
    await runTurn(conversation, deps('gemma3:1b', quirks), 'Again', [], never);
    expect(endpoint.received.filter(r => r.url === '/api/show')).toHaveLength(1);
    const last = conversation.entries[conversation.entries.length - 1] as StoredMessage;
    expect(last).toMatchObject({ role: 'assistant', content: 'Again.' });
  });

  it('a vision model gets the images', async () => {
    serve({ '/api/show': 'ollama-0.12.3.api-show-vision.http' }, [viewer, answer('I see it.')]);
    const conversation = new Conversation();
    await runTurn(conversation, deps('qwen2.5vl:7b', new ModelQuirkMemory()), 'Look', [], never);
    expect(completions().map(body => body.includes('"image_url"'))).toEqual([false, true]);
    expect(conversation.notice).toBeUndefined();
  });
});

const never = new AbortController().signal;
