/**
 * Server quirks a new user met (issue 32), through the real figure server's model proxy and the
 * chat's real transport, conversation, registry and agent loop: llama-cpp-python's refusal of a
 * `null` assistant content and its validation dump, old llama.cpp's "Cannot use tools with
 * stream", and LM Studio's unreadable text tool call given back to the model once.
 */
import type { ServerResponse } from 'node:http';

import { ServerConnection } from '@jupyterlab/services';
import { z } from 'zod';

import { NOTICES, runTurn, type AgentDeps } from '../chat/agent';
import { UNREADABLE_CALL_HINT } from '../chat/agent-unreadable';
import { Conversation } from '../chat/conversation';
import { figureServerTransport } from '../chat/model-client';
import { ModelQuirkMemory } from '../chat/model-quirks';
import { ToolRegistry } from '../tools/registry';
import type { AssistantMessage, StoredMessage, ToolMessage } from '../tools/transcript';
import { FakeEndpoint, useFigureServer, type ReceivedRequest } from './helpers/loopback';
import { answer, toolCalls } from './helpers/sse';

const figure = useFigureServer('figure-chat-quirks-');
let endpoint: FakeEndpoint;

beforeEach(async () => {
  endpoint = await new FakeEndpoint().start();
});

afterEach(async () => {
  await endpoint.close();
});

const never = new AbortController().signal;
const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"/>';

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register({
    name: 'present_svg',
    description: 'Show an SVG',
    input: z.object({ svg: z.string(), alt: z.string() }),
    mutates: false,
    run: async args => ({ status: 'completed', text: `SVG presented inline: ${args.alt}` })
  });
  return tools;
}

function deps(quirks = new ModelQuirkMemory()): AgentDeps {
  return {
    registry: registry(),
    transport: figureServerTransport(ServerConnection.makeSettings({ baseUrl: `${figure.url}/` })),
    settings: {
      endpoint: `${endpoint.url}/v1`,
      model: 'local',
      contextBudget: 100_000,
      maxToolRounds: 4,
      acceptsImages: 'no'
    },
    toolHost: null,
    quirks
  };
}

interface SentMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

function messagesOf(request: ReceivedRequest): SentMessage[] {
  return (JSON.parse(request.body) as { messages: SentMessage[] }).messages;
}

function readable(conversation: Conversation): StoredMessage[] {
  return conversation.entries.filter(
    (entry): entry is StoredMessage => entry.role !== 'unreadable'
  );
}

function last(conversation: Conversation): AssistantMessage {
  const replies = readable(conversation).filter(
    (entry): entry is AssistantMessage => entry.role === 'assistant'
  );
  return replies[replies.length - 1];
}

/** Send each scripted SSE answer in turn. */
function stream(res: ServerResponse, chunks: ReadonlyArray<string>): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' }).end(chunks.join(''));
}

/**
 * What `llama_cpp.server` 0.3.x answers to an assistant message whose `content` is not a string:
 * its route error handler passes the pydantic error's text on as a 500 in OpenAI's error shape.
 * (Shaped after llama_cpp/server/errors.py; the items are pydantic v2's wording.)
 */
const PYDANTIC_DUMP = [
  '7 validation errors for ChatCompletionRequestAssistantMessage',
  ...[
    'ChatCompletionRequestSystemMessage',
    'ChatCompletionRequestUserMessage',
    'ChatCompletionRequestAssistantMessage',
    'ChatCompletionRequestToolMessage',
    'ChatCompletionRequestFunctionMessage',
    'ChatCompletionRequestDeveloperMessage',
    'ChatCompletionRequestAssistantMessage.content'
  ].flatMap(kind => [
    `messages.2.${kind}`,
    '  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]',
    '    For further information visit https://errors.pydantic.dev/2.11/v/string_type'
  ])
].join('\n');

function llamaCppPython(request: ReceivedRequest, res: ServerResponse): void {
  const messages = messagesOf(request);
  const assistant = messages.filter(message => message.role === 'assistant');
  if (assistant.some(message => typeof message.content !== 'string')) {
    res.writeHead(500, { 'Content-Type': 'application/json' }).end(
      JSON.stringify({
        error: { message: PYDANTIC_DUMP, type: 'internal_server_error', param: null, code: null }
      })
    );
    return;
  }
  stream(
    res,
    assistant.length
      ? answer('Shown.')
      : toolCalls([{ id: 'call_1', name: 'present_svg', arguments: { svg, alt: 'dot' } }])
  );
}

describe('llama-cpp-python: the tool round', () => {
  it('sends the tool-call message with content "" and gets the answer', async () => {
    endpoint.handler = llamaCppPython;
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Draw', [], never);
    expect(endpoint.received).toHaveLength(2);
    const sent = messagesOf(endpoint.received[1]).find(message => message.role === 'assistant');
    expect(sent).toMatchObject({ content: '', tool_calls: [expect.anything()] });
    expect(last(conversation)).toMatchObject({ content: 'Shown.', status: 'completed' });
  });
});

describe('a validation dump is never the answer', () => {
  it('is summarised in one short paragraph, the dump kept after it for "Show details"', async () => {
    endpoint.handler = (_request, res) => {
      res.writeHead(500, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          error: { message: PYDANTIC_DUMP, type: 'internal_server_error', param: null, code: null }
        })
      );
    };
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Hi', [], never);
    const error = (last(conversation) as AssistantMessage & { error?: string }).error ?? '';
    const [summary, ...rest] = error.split('\n\n');
    expect(summary).toMatch(
      /did not accept the shape of the request \(HTTP 500, 7 validation errors/
    );
    expect(summary).toMatch(/Retry/);
    expect(summary).not.toContain('input_value');
    expect(summary.length).toBeLessThan(400);
    expect(rest.join('\n\n')).toContain('Input should be a valid string');
  });

  it("summarises FastAPI's 422 detail list the same way", async () => {
    endpoint.handler = (_request, res) => {
      res.writeHead(422, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          detail: [
            {
              type: 'string_type',
              loc: ['body', 'messages', 2, 'content'],
              msg: 'Input should be a valid string',
              input: null
            },
            { type: 'missing', loc: ['body', 'model'], msg: 'Field required', input: {} }
          ]
        })
      );
    };
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Hi', [], never);
    const error = (last(conversation) as AssistantMessage & { error?: string }).error ?? '';
    const [summary, detail] = error.split('\n\n');
    expect(summary).toMatch(/HTTP 422, 2 validation errors for the request/);
    expect(detail).toContain('body.messages.2.content: Input should be a valid string');
  });
});

describe('old llama.cpp: "Cannot use tools with stream."', () => {
  it('is a tool refusal: retried without tools, remembered, with the notice', async () => {
    endpoint.handler = (request, res) => {
      if ('tools' in (JSON.parse(request.body) as object)) {
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' }).end(
          JSON.stringify({
            error: { code: 500, message: 'Cannot use tools with stream.', type: 'server_error' }
          })
        );
        return;
      }
      stream(res, answer('Hello without tools.'));
    };
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Hi', [], never);
    expect(endpoint.received.map(request => 'tools' in JSON.parse(request.body))).toEqual([
      true,
      false
    ]);
    expect(conversation.notice).toBe(NOTICES.tools);
    expect(last(conversation)).toMatchObject({
      content: 'Hello without tools.',
      status: 'completed'
    });
  });
});

/** LM Studio's text for a call it could not parse itself. */
const LM_STUDIO_BAD_CALL = '<tool_call>\n["name": "present_svg", function: "svg"]\n</tool_call>';

describe('an unreadable text tool call goes back to the model once', () => {
  it('gives the parse error as a failed result, and the corrected call runs', async () => {
    const replies = [
      answer(LM_STUDIO_BAD_CALL),
      answer(
        `<tool_call>${JSON.stringify({ name: 'present_svg', arguments: { svg, alt: 'dot' } })}</tool_call>`
      ),
      answer('Shown.')
    ];
    endpoint.handler = (_request, res) => stream(res, replies.shift() ?? answer('?'));
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Draw', [], never);
    expect(endpoint.received).toHaveLength(3);
    // The second request tells the model what was wrong, as a failed result of its call.
    const second = messagesOf(endpoint.received[1]);
    const failed = second.find(message => message.role === 'tool');
    expect(failed?.content).toMatch(/^Tool error: The model's tool call is not valid JSON/);
    expect(failed?.content).toContain(UNREADABLE_CALL_HINT);
    const results = readable(conversation).filter((m): m is ToolMessage => m.role === 'tool');
    expect(results.map(result => result.status)).toEqual(['failed', 'completed']);
    const first = readable(conversation).find((m): m is AssistantMessage => m.role === 'assistant');
    // Nothing of it could be read: it stands in the transcript as an unreadable call.
    expect(first?.tool_calls?.[0]).toMatchObject({ name: 'unreadable_tool_call', arguments: {} });
    expect(last(conversation)).toMatchObject({ content: 'Shown.', status: 'completed' });
    expect((last(conversation) as { error?: string }).error).toBeUndefined();
  });

  it('ends the turn with the error when the second call is unreadable too', async () => {
    endpoint.handler = (_request, res) => stream(res, answer(LM_STUDIO_BAD_CALL));
    const conversation = new Conversation();
    await runTurn(conversation, deps(), 'Draw', [], never);
    expect(endpoint.received).toHaveLength(2);
    expect(last(conversation)).toMatchObject({
      status: 'interrupted',
      error: expect.stringMatching(/not valid JSON/)
    });
  });
});
