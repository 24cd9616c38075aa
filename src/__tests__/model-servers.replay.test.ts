/**
 * Model servers as they really answer (issue 8): recorded byte sequences of Ollama, llama.cpp's
 * llama-server, vLLM, LM Studio, OpenAI and llama-cpp-python, replayed through the real figure
 * server's model proxy and the chat's real transport, conversation, registry and agent loop. The
 * fake endpoint only sends the recorded bytes. Streams are also split at every position.
 */
import { ServerConnection } from '@jupyterlab/services';
import { z } from 'zod';

import {
  EMPTY_STREAM_WITH_TOOLS,
  NOTICES,
  VIEWS_NOT_SENT_TEXT,
  runTurn,
  type AgentDeps,
  type AgentSettings
} from '../chat/agent';
import { Conversation } from '../chat/conversation';
import { figureServerTransport } from '../chat/model-client';
import { ModelQuirkMemory } from '../chat/model-quirks';
import { ChatStreamAccumulator, SseDecoder, type StreamResult } from '../chat/stream';
import { ToolRegistry, type ToolImage } from '../tools/registry';
import type { AssistantMessage, StoredMessage, ToolMessage } from '../tools/transcript';
import { FakeEndpoint, useFigureServer, type ReceivedRequest } from './helpers/loopback';
import { loadServerFixture, type ServerFixture } from './helpers/server-fixtures';
import { answer, toolCalls } from './helpers/sse';

const view: ToolImage = {
  png: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB',
  width: 1,
  height: 1,
  caption: 'map'
};

const figure = useFigureServer('figure-chat-servers-');
let endpoint: FakeEndpoint;

beforeEach(async () => {
  endpoint = await new FakeEndpoint().start();
});

afterEach(async () => {
  await endpoint.close();
});

/** An SSE answer the scripted side sends (not a recording). */
function sseFixture(chunks: ReadonlyArray<string>): ServerFixture {
  return { name: 'scripted', status: 200, contentType: 'text/event-stream', body: chunks.join('') };
}

/** Make the endpoint answer each request with the next fixture, byte for byte. */
function serve(...answers: ServerFixture[]): void {
  const queue = [...answers];
  endpoint.handler = (_request, res) => {
    const next = queue.shift();
    if (!next) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('no more scripted answers');
      return;
    }
    res.writeHead(next.status, { 'Content-Type': next.contentType }).end(next.body);
  };
}

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register({
    name: 'viewer',
    description: 'Renders a view',
    input: z.object({}),
    mutates: false,
    run: async () => ({ status: 'completed', text: 'Rendered the map.', images: [view] })
  });
  tools.register({
    name: 'present_svg',
    description: 'Show an SVG',
    input: z.object({ svg: z.string(), alt: z.string() }),
    mutates: false,
    run: async args => ({ status: 'completed', text: `SVG presented inline: ${args.alt}` })
  });
  return tools;
}

function deps(overrides: Partial<AgentSettings> = {}, quirks = new ModelQuirkMemory()): AgentDeps {
  return {
    registry: registry(),
    transport: figureServerTransport(ServerConnection.makeSettings({ baseUrl: `${figure.url}/` })),
    settings: {
      endpoint: `${endpoint.url}/v1`,
      model: 'text-only',
      contextBudget: 100_000,
      maxToolRounds: 4,
      acceptsImages: 'auto',
      ...overrides
    },
    toolHost: null,
    quirks
  };
}

function bodyOf(request: ReceivedRequest): Record<string, unknown> {
  return JSON.parse(request.body) as Record<string, unknown>;
}

function readable(conversation: Conversation): StoredMessage[] {
  return conversation.entries.filter(
    (entry): entry is StoredMessage => entry.role !== 'unreadable'
  );
}

function last(conversation: Conversation): AssistantMessage & { error?: unknown } {
  const replies = readable(conversation).filter(
    (entry): entry is AssistantMessage => entry.role === 'assistant'
  );
  return replies[replies.length - 1];
}

const never = new AbortController().signal;
const viewerCall = toolCalls([{ id: 'v1', name: 'viewer', arguments: {} }]);

describe('image refusals fall back to text once, on every server', () => {
  it.each([
    'llama.cpp-b5500.image-refused.http',
    'vllm-0.8.5.image-refused.http',
    'lmstudio-0.3.15.image-refused.http',
    'openai-2025-04.image-refused.http'
  ])('%s', async name => {
    serve(
      sseFixture(viewerCall),
      loadServerFixture(name),
      sseFixture(answer('Described in text.'))
    );
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Look', [], never);
    const sent = endpoint.received.map(request => request.body.includes('"image_url"'));
    expect(sent).toEqual([false, true, false]);
    expect(conversation.notice).toBe(NOTICES.images);
    expect(last(conversation)).toMatchObject({
      content: 'Described in text.',
      status: 'completed'
    });
    expect(last(conversation)).not.toHaveProperty('error');
    // The tool result the model reads says the views did not reach it.
    const result = readable(conversation).find((m): m is ToolMessage => m.role === 'tool');
    expect(result?.content).toBe(`Rendered the map.${VIEWS_NOT_SENT_TEXT}`);
    expect(JSON.stringify(bodyOf(endpoint.received[2]).messages)).toContain(VIEWS_NOT_SENT_TEXT);
  });

  it('keys the refusal by endpoint + model: a vision model picked later gets images', async () => {
    const quirks = new ModelQuirkMemory();
    serve(
      sseFixture(viewerCall),
      loadServerFixture('llama.cpp-b5500.image-refused.http'),
      sseFixture(answer('Text only.')),
      sseFixture(viewerCall),
      sseFixture(answer('Text only again.')),
      sseFixture(viewerCall),
      sseFixture(answer('I see the map.'))
    );
    const conversation = new Conversation();
    await runTurn(conversation, deps({ model: 'text-only' }, quirks), 'Look', [], never);
    await runTurn(conversation, deps({ model: 'text-only' }, quirks), 'Again', [], never);
    await runTurn(conversation, deps({ model: 'qwen2.5vl:7b' }, quirks), 'Now?', [], never);
    const sent = endpoint.received.map(request => request.body.includes('"image_url"'));
    expect(sent).toEqual([false, true, false, false, false, false, true]);
    expect(last(conversation).content).toBe('I see the map.');
  });
});

describe('a refused temperature is retried without it', () => {
  it('openai-2025-04.o3-temperature-refused.http', async () => {
    serve(
      loadServerFixture('openai-2025-04.o3-temperature-refused.http'),
      sseFixture(answer('Fine.'))
    );
    const conversation = new Conversation();
    await runTurn(conversation, deps({ model: 'o3', temperature: 0.3 }), 'Hi', [], never);
    expect(endpoint.received.map(request => bodyOf(request).temperature)).toEqual([0.3, undefined]);
    expect(conversation.notice).toBe(NOTICES.temperature);
    expect(conversation.notice).toMatch(/retried without temperature/);
    expect(last(conversation)).toMatchObject({ content: 'Fine.', status: 'completed' });
  });

  it('sends no temperature when none is set', async () => {
    serve(sseFixture(answer('Fine.')));
    await runTurn(new Conversation(), deps(), 'Hi', [], never);
    expect(bodyOf(endpoint.received[0])).not.toHaveProperty('temperature');
  });
});

describe('a model without tool support is retried without tools', () => {
  it.each([
    'ollama-0.6.8.tools-refused.http',
    'vllm-0.8.5.tools-refused.http',
    'llama.cpp-b5500.tools-refused.http',
    'openai-2025-04.o1-mini-tools-refused.http'
  ])('%s', async name => {
    serve(
      loadServerFixture(name),
      sseFixture(answer('Hello without tools.')),
      sseFixture(answer('Still without tools.'))
    );
    const conversation = new Conversation();
    const quirks = new ModelQuirkMemory();
    await runTurn(conversation, deps({}, quirks), 'Hi', [], never);
    const bodies = endpoint.received.map(bodyOf);
    expect(bodies.map(body => 'tools' in body)).toEqual([true, false]);
    expect(JSON.stringify(bodies[1].messages)).toContain('<tool_call>');
    expect(conversation.notice).toBe(NOTICES.tools);
    expect(last(conversation)).toMatchObject({
      content: 'Hello without tools.',
      status: 'completed'
    });
    // Remembered for this model: the next turn goes without tools at once.
    await runTurn(conversation, deps({}, quirks), 'Again', [], never);
    expect(endpoint.received.map(request => 'tools' in bodyOf(request))).toEqual([
      true,
      false,
      false
    ]);
  });

  it('still reads a text tool call the model writes in that mode', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"/>';
    serve(
      loadServerFixture('ollama-0.6.8.tools-refused.http'),
      sseFixture(
        answer(
          `<tool_call>${JSON.stringify({ name: 'present_svg', arguments: { svg, alt: 'dot' } })}</tool_call>`
        )
      ),
      sseFixture(answer('Shown.'))
    );
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Draw', [], never);
    const call = readable(conversation).find(
      (m): m is AssistantMessage => m.role === 'assistant' && Boolean(m.tool_calls?.length)
    );
    expect(call?.tool_calls?.[0]).toMatchObject({
      name: 'present_svg',
      arguments: { svg, alt: 'dot' }
    });
    expect(last(conversation).content).toBe('Shown.');
  });
});

describe('llama-cpp-python quirks', () => {
  it('names the empty stream it sends for streamed tool requests', async () => {
    serve(loadServerFixture('llama-cpp-python-0.3.9.tools-empty-stream.http'));
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Hi', [], never);
    expect(last(conversation)).toMatchObject({
      status: 'interrupted',
      error: EMPTY_STREAM_WITH_TOOLS
    });
  });

  it('runs a tool call streamed with repeated names and raw control characters', async () => {
    serve(
      loadServerFixture('llama-cpp-python-0.3.9.tool-call-deltas.http'),
      sseFixture(answer('Done.'))
    );
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Draw', [], never);
    const reply = readable(conversation).find((m): m is AssistantMessage => m.role === 'assistant');
    expect(reply?.tool_calls).toEqual([
      {
        id: 'call__0_present_svg_cmpl-9f2',
        name: 'present_svg',
        arguments: {
          svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">\n<rect width="10" height="10"/></svg>',
          alt: 'A square\x15'
        }
      }
    ]);
    const result = readable(conversation).find((m): m is ToolMessage => m.role === 'tool');
    expect(result).toMatchObject({
      tool_call_id: 'call__0_present_svg_cmpl-9f2',
      status: 'completed'
    });
    expect(last(conversation).content).toBe('Done.');
  });
});

/** Decode and accumulate a body cut into two at `cut`. */
function readSplit(body: string, cut: number): StreamResult & { field?: string } {
  const decoder = new SseDecoder();
  const accumulator = new ChatStreamAccumulator('c');
  for (const part of [body.slice(0, cut), body.slice(cut)]) {
    for (const payload of decoder.push(part)) {
      accumulator.push(payload);
    }
  }
  for (const payload of decoder.flush()) {
    accumulator.push(payload);
  }
  return { ...accumulator.finish(), field: accumulator.reasoningField };
}

describe('reasoning in all three forms, split at every position', () => {
  it.each([
    ['ollama-0.12.3.think-in-content.http', undefined],
    ['vllm-0.8.5.think-in-content.http', undefined],
    ['ollama-0.12.4.reasoning.http', 'reasoning'],
    ['llama.cpp-b5500.reasoning-content.http', 'reasoning_content']
  ])('%s', (name, field) => {
    const { body } = loadServerFixture(name);
    const whole = readSplit(body, 0);
    expect(whole).toMatchObject({ content: 'Hello there!', errors: [], complete: true, field });
    expect(whole.reasoning.trim()).toBe('The user wants a greeting.');
    for (let cut = 1; cut <= body.length; cut++) {
      expect(readSplit(body, cut)).toEqual(whole);
    }
  });

  it('llama-cpp-python-0.3.9.tool-call-deltas.http', () => {
    const { body } = loadServerFixture('llama-cpp-python-0.3.9.tool-call-deltas.http');
    const whole = readSplit(body, 0);
    expect(whole.calls.map(call => call.name)).toEqual(['present_svg']);
    for (let cut = 1; cut <= body.length; cut++) {
      expect(readSplit(body, cut)).toEqual(whole);
    }
  });

  it('stores the reasoning apart from the answer and shows it live', async () => {
    serve(loadServerFixture('ollama-0.12.3.think-in-content.http'));
    const conversation = new Conversation();
    const seen: string[] = [];
    conversation.changed.connect(() => {
      const reply = conversation.entries[1];
      if (reply?.role === 'assistant' && reply.reasoning) {
        seen.push(reply.reasoning);
      }
    });
    await runTurn(conversation, deps(), 'Hi', [], never);
    expect(last(conversation)).toMatchObject({ content: 'Hello there!', status: 'completed' });
    expect(last(conversation).reasoning?.trim()).toBe('The user wants a greeting.');
    expect(last(conversation).content).not.toContain('think');
    expect(seen.length).toBeGreaterThan(1);
  });

  it("sends reasoning back in the server's field within a turn's tool rounds only", async () => {
    const reasoningCall = toolCalls([{ id: 'v1', name: 'viewer', arguments: {} }]).map(
      chunk => chunk
    );
    reasoningCall.unshift(
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { reasoning_content: 'Look first.' } }] })}\n\n`
    );
    serve(sseFixture(reasoningCall), sseFixture(answer('Seen.')), sseFixture(answer('Next.')));
    const conversation = new Conversation();
    const quirks = new ModelQuirkMemory();
    await runTurn(conversation, deps({ acceptsImages: 'no' }, quirks), 'Look', [], never);
    await runTurn(conversation, deps({ acceptsImages: 'no' }, quirks), 'And?', [], never);
    const assistantsSent = endpoint.received.map(request =>
      (bodyOf(request).messages as Array<Record<string, unknown>>).filter(
        m => m.role === 'assistant'
      )
    );
    expect(assistantsSent[1][0]).toMatchObject({ reasoning_content: 'Look first.' });
    // In a later turn, it is not sent back.
    expect(assistantsSent[2][0]).not.toHaveProperty('reasoning_content');
  });
});
