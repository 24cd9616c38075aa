/**
 * The agent loop (SPEC section 5) against a scripted model: only the model transport is scripted
 * (SSE text in arbitrary chunks); the conversation, tool registry, context builder and stream
 * decoding are the real ones. Covers answers, tool rounds, the round guard, Stop, transport and
 * stream faults, runaway answers and the image fallback.
 */
import { z } from 'zod';

import { buildChatItems } from '../chat/cards';
import { MAX_ANSWER_CHARS, runTurn, type AgentDeps, type AgentSettings } from '../chat/agent';
import { Conversation } from '../chat/conversation';
import { ModelRequestError } from '../chat/model-client';
import { ModelQuirkMemory } from '../chat/model-quirks';
import { ToolRegistry, type ToolImage, type ToolOutput } from '../tools/registry';
import type {
  AssistantMessage,
  StoredMessage,
  ToolMessage,
  UnreadableEntry
} from '../tools/transcript';
import { deferred, untilAborted } from './helpers/async';
import { until } from './helpers/conversation';
import {
  ScriptedModel,
  hasImages,
  requestMessages,
  type ScriptedReply
} from './helpers/scripted-model';
import {
  DONE,
  answer,
  finishChunk,
  rechunk,
  textChunk,
  toolCallChunk,
  toolCalls
} from './helpers/sse';

const settings: AgentSettings = {
  endpoint: 'http://127.0.0.1:9/v1',
  model: 'scripted',
  temperature: 0,
  contextBudget: 100_000,
  maxToolRounds: 4,
  acceptsImages: 'auto'
};

const view: ToolImage = {
  png: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB',
  width: 1,
  height: 1,
  caption: 'map'
};

/** The test tools: a read-only echo, a mutating counter, a mutating call that runs until Stop, a viewer. */
function tools(): {
  registry: ToolRegistry;
  counter: { count: number };
  holdStarted: ReturnType<typeof deferred>;
} {
  const counter = { count: 0 };
  const holdStarted = deferred();
  const registry = new ToolRegistry();
  registry.register({
    name: 'echo',
    description: 'Repeat the text (like notebook_read: read-only)',
    input: z.object({ text: z.string() }),
    mutates: false,
    run: async args => ({ status: 'completed', text: `echo: ${args.text}` })
  });
  registry.register({
    name: 'counter',
    description: 'Add one',
    input: z.object({}),
    mutates: true,
    run: async () => {
      counter.count += 1;
      return { status: 'completed', text: `count is ${counter.count}` };
    }
  });
  registry.register({
    name: 'hold',
    description: 'Runs until stopped',
    input: z.object({}),
    mutates: true,
    run: async (_args, context): Promise<ToolOutput> => {
      holdStarted.resolve();
      return untilAborted(context.signal);
    }
  });
  registry.register({
    name: 'viewer',
    description: 'Renders a view',
    input: z.object({}),
    mutates: false,
    run: async () => ({ status: 'completed', text: 'Rendered the map.', images: [view] })
  });
  return { registry, counter, holdStarted };
}

function setup(
  replies: ReadonlyArray<ScriptedReply>,
  overrides: Partial<AgentSettings> = {}
): {
  conversation: Conversation;
  model: ScriptedModel;
  deps: AgentDeps;
  counter: { count: number };
  holdStarted: ReturnType<typeof deferred>;
} {
  const { registry, counter, holdStarted } = tools();
  const model = new ScriptedModel(replies);
  const deps: AgentDeps = {
    registry,
    transport: model.transport,
    settings: { ...settings, ...overrides },
    toolHost: null,
    quirks: new ModelQuirkMemory()
  };
  return { conversation: new Conversation(), model, deps, counter, holdStarted };
}

function readable(entries: ReadonlyArray<StoredMessage | UnreadableEntry>): StoredMessage[] {
  return entries.filter((entry): entry is StoredMessage => entry.role !== 'unreadable');
}

function assistants(conversation: Conversation): Array<AssistantMessage & { error?: unknown }> {
  return readable(conversation.entries).filter(
    (entry): entry is AssistantMessage => entry.role === 'assistant'
  );
}

function toolMessages(conversation: Conversation): ToolMessage[] {
  return readable(conversation.entries).filter(
    (entry): entry is ToolMessage => entry.role === 'tool'
  );
}

function lastAssistant(conversation: Conversation): AssistantMessage & { error?: unknown } {
  const all = assistants(conversation);
  return all[all.length - 1];
}

const never = new AbortController().signal;

describe('runTurn', () => {
  it('streams an answer into the conversation as it arrives', async () => {
    const { conversation, model, deps } = setup([
      rechunk(answer('Hello', ' world', ', in *Markdown*.'))
    ]);
    const seen: string[] = [];
    conversation.changed.connect(() => {
      const last = conversation.entries[conversation.entries.length - 1];
      if (last?.role === 'assistant') {
        seen.push(last.content);
      }
    });
    await runTurn(conversation, deps, 'Say hello', [], never);

    expect(readable(conversation.entries).map(entry => entry.role)).toEqual(['user', 'assistant']);
    const reply = lastAssistant(conversation);
    expect(reply).toMatchObject({ content: 'Hello world, in *Markdown*.', status: 'completed' });
    expect(reply).not.toHaveProperty('error');
    expect(reply).not.toHaveProperty('tool_calls');
    // The text grew while it streamed, before the reply was complete.
    expect(seen).toContain('Hello');
    expect(seen).toContain('Hello world');
    expect(conversation.live).toEqual({});
    // What the model was sent.
    expect(model.requests).toHaveLength(1);
    const body = model.requests[0].body;
    expect(body).toMatchObject({ model: 'scripted', stream: true, temperature: 0 });
    expect(model.requests[0].endpoint).toBe(settings.endpoint);
    expect(requestMessages(model.requests[0]).map(m => m.role)).toEqual(['system', 'user']);
    expect(requestMessages(model.requests[0])[1]).toEqual({ role: 'user', content: 'Say hello' });
    const toolNames = (body.tools as Array<{ function: { name: string } }>).map(
      t => t.function.name
    );
    expect(toolNames).toEqual(['echo', 'counter', 'hold', 'viewer']);
  });

  it('runs a tool round and sends the results back in call order', async () => {
    const { conversation, model, deps, counter } = setup([
      rechunk(
        toolCalls(
          [
            { id: 'c1', name: 'echo', arguments: { text: 'cells' } },
            { id: 'c2', name: 'counter', arguments: {} },
            { id: 'c3', name: 'echo', arguments: { wrong: 1 } }
          ],
          'Let me look.'
        )
      ),
      rechunk(answer('The notebook has cells.'))
    ]);
    await runTurn(conversation, deps, 'What is in it?', ['cell:abc/0'], never);

    expect(counter.count).toBe(1);
    const entries = readable(conversation.entries);
    expect(entries.map(entry => entry.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'assistant'
    ]);
    expect(entries[0]).toMatchObject({ role: 'user', attachments: ['cell:abc/0'] });
    expect(entries[1]).toMatchObject({
      content: 'Let me look.',
      status: 'completed',
      tool_calls: [
        { id: 'c1', name: 'echo', arguments: { text: 'cells' } },
        { id: 'c2', name: 'counter', arguments: {} },
        { id: 'c3', name: 'echo', arguments: { wrong: 1 } }
      ]
    });
    expect(toolMessages(conversation).map(m => [m.tool_call_id, m.status, m.content])).toEqual([
      ['c1', 'completed', 'echo: cells'],
      ['c2', 'completed', 'count is 1'],
      ['c3', 'failed', expect.stringMatching(/^Tool error: invalid arguments for echo: text: /)]
    ]);
    expect(lastAssistant(conversation)).toMatchObject({
      content: 'The notebook has cells.',
      status: 'completed'
    });

    const second = requestMessages(model.requests[1]);
    expect(second.map(m => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'tool'
    ]);
    expect(second[2]).toEqual({
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"text":"cells"}' } },
        { id: 'c2', type: 'function', function: { name: 'counter', arguments: '{}' } },
        { id: 'c3', type: 'function', function: { name: 'echo', arguments: '{"wrong":1}' } }
      ]
    });
    expect(second.slice(3).map(m => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
    expect(model.remaining).toBe(0);
    expect(
      buildChatItems(conversation.entries)
        .filter(i => i.kind === 'tool')
        .map(i => i.kind === 'tool' && i.state)
    ).toEqual(['completed', 'completed', 'failed']);
  });

  it('runs tool calls written as text (Hermes) and keeps the markup out of the answer', async () => {
    const call = '<tool_call>\n{"name": "echo", "arguments": {"text": "a < b & c"}}\n</tool_call>';
    const { conversation, deps } = setup([
      rechunk([textChunk(`Reading.${call}`), finishChunk('stop'), DONE]),
      answer('Done.')
    ]);
    await runTurn(conversation, deps, 'Read', [], never);
    const [first] = assistants(conversation);
    expect(first.content).toBe('Reading.');
    expect(first.tool_calls).toEqual([
      { id: expect.stringMatching(/_c_t1$/), name: 'echo', arguments: { text: 'a < b & c' } }
    ]);
    expect(toolMessages(conversation)[0]).toMatchObject({
      status: 'completed',
      content: 'echo: a < b & c'
    });
    expect(JSON.stringify(conversation.toStored())).not.toContain('<tool_call>');
  });

  it('stops after the configured number of tool rounds with an actionable error', async () => {
    const again = (n: number): string[] =>
      toolCalls([{ id: `r${n}`, name: 'counter', arguments: {} }]);
    const { conversation, model, deps, counter } = setup([again(1), again(2)], {
      maxToolRounds: 2
    });
    await runTurn(conversation, deps, 'Loop', [], never);
    expect(model.requests).toHaveLength(2);
    expect(counter.count).toBe(2);
    expect(toolMessages(conversation).map(m => m.tool_call_id)).toEqual(['r1', 'r2']);
    const last = lastAssistant(conversation);
    expect(last.status).toBe('interrupted');
    expect(last.error).toMatch(
      /^Stopped after 2 tool rounds without a final answer\..*Max tool rounds/
    );
    expect(conversation.live).toEqual({});
  });

  it('keeps the partial text of a reply stopped mid-stream, marked interrupted', async () => {
    const reached = deferred();
    const { conversation, model, deps } = setup([
      async function* (_request, signal): AsyncGenerator<string> {
        yield* rechunk([textChunk('Partial '), textChunk('answer')]);
        yield toolCallChunk(0, { id: 'cut', name: 'echo', arguments: '{"text": "ha' });
        reached.resolve();
        await untilAborted(signal);
      }
    ]);
    const abort = new AbortController();
    const turn = runTurn(conversation, deps, 'Go', [], abort.signal);
    await reached.promise;
    expect(lastAssistant(conversation).content).toBe('Partial answer');
    expect(conversation.live.streamingId).toBe(lastAssistant(conversation).id);
    abort.abort();
    await turn;
    const reply = lastAssistant(conversation);
    expect(reply).toMatchObject({ content: 'Partial answer', status: 'interrupted' });
    expect(reply).not.toHaveProperty('error');
    expect(toolMessages(conversation)).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(conversation.live).toEqual({});
  });

  it('keeps a tool call that arrived whole before Stop, as an interrupted card, and runs nothing', async () => {
    const reached = deferred<void>();
    const { conversation, model, deps } = setup([
      async function* (_request, signal): AsyncGenerator<string> {
        yield* rechunk([textChunk('Reading. ')]);
        yield toolCallChunk(0, { id: 'whole', name: 'echo', arguments: '{"text": "hi"}' });
        reached.resolve();
        await untilAborted(signal);
      }
    ]);
    const abort = new AbortController();
    const turn = runTurn(conversation, deps, 'Go', [], abort.signal);
    await reached.promise;
    abort.abort();
    await turn;
    const reply = lastAssistant(conversation);
    expect(reply).toMatchObject({
      status: 'interrupted',
      tool_calls: [{ id: 'whole', name: 'echo', arguments: { text: 'hi' } }]
    });
    expect(toolMessages(conversation)).toEqual([]);
    expect(model.requests).toHaveLength(1);
    const cards = buildChatItems(conversation.entries).filter(item => item.kind === 'tool');
    expect(cards.map(card => (card.kind === 'tool' ? card.state : ''))).toEqual(['interrupted']);
  });

  it('records the calls that Stop cut off as interrupted, in call order, and starts no more', async () => {
    const { conversation, model, deps, counter, holdStarted } = setup([
      toolCalls([
        { id: 'c1', name: 'echo', arguments: { text: 'x' } },
        { id: 'c2', name: 'hold', arguments: {} },
        { id: 'c3', name: 'counter', arguments: {} }
      ])
    ]);
    const abort = new AbortController();
    const turn = runTurn(conversation, deps, 'Go', [], abort.signal);
    await holdStarted.promise;
    await until(conversation, c => toolMessages(c).length === 1);
    expect(conversation.live.runningCallIds).toEqual(new Set(['c2', 'c3']));
    abort.abort();
    await turn;

    expect(toolMessages(conversation).map(m => [m.tool_call_id, m.status])).toEqual([
      ['c1', 'completed'],
      ['c2', 'interrupted'],
      ['c3', 'interrupted']
    ]);
    // The mutating call queued behind the stopped one never ran.
    expect(counter.count).toBe(0);
    expect(model.requests).toHaveLength(1);
    expect(assistants(conversation)).toHaveLength(1);
    expect(conversation.live).toEqual({});
    const states = buildChatItems(conversation.entries).flatMap(i =>
      i.kind === 'tool' ? [i.state] : []
    );
    expect(states).toEqual(['completed', 'interrupted', 'interrupted']);
  });

  it('does not blame the round limit when Stop ends the last round', async () => {
    const { conversation, deps, holdStarted } = setup(
      [toolCalls([{ id: 'c1', name: 'hold', arguments: {} }])],
      { maxToolRounds: 1 }
    );
    const abort = new AbortController();
    const turn = runTurn(conversation, deps, 'Go', [], abort.signal);
    await holdStarted.promise;
    abort.abort();
    await turn;
    expect(toolMessages(conversation).map(m => m.status)).toEqual(['interrupted']);
    expect(assistants(conversation)).toHaveLength(1);
    expect(JSON.stringify(conversation.entries)).not.toContain('tool rounds');
  });

  it('stores a request error on the assistant message and keeps the partial text', async () => {
    const message =
      'No model server answered at http://127.0.0.1:9/v1 (ECONNRESET). Start it or set the endpoint in Settings → Figure Chat.';
    const { conversation, deps } = setup([
      async function* (): AsyncGenerator<string> {
        yield textChunk('Half an ');
        yield textChunk('answer');
        throw new ModelRequestError(502, message, 'unreachable');
      }
    ]);
    await runTurn(conversation, deps, 'Go', [], never);
    expect(lastAssistant(conversation)).toMatchObject({
      content: 'Half an answer',
      status: 'interrupted',
      error: message
    });
    expect(conversation.live).toEqual({});
  });

  it('stores a request error that came before any text', async () => {
    const { conversation, model, deps } = setup([
      async function* (): AsyncGenerator<string> {
        throw new ModelRequestError(
          401,
          'The model server answered 401. Set FIGURE_CHAT_API_KEY.',
          'upstream'
        );
      }
    ]);
    await runTurn(conversation, deps, 'Go', [], never);
    expect(lastAssistant(conversation)).toMatchObject({
      content: '',
      status: 'interrupted',
      error: expect.stringContaining('401')
    });
    expect(model.requests).toHaveLength(1);
  });

  it('ends the turn with an error on a malformed chunk, keeping the text before it', async () => {
    const { conversation, deps } = setup([
      rechunk([
        textChunk('Before the break.'),
        'data: {"choices": [{"delta": \n\n',
        ...answer('never seen')
      ])
    ]);
    await runTurn(conversation, deps, 'Go', [], never);
    const reply = lastAssistant(conversation);
    expect(reply.content).toBe('Before the break.');
    expect(reply.status).toBe('interrupted');
    expect(reply.error).toMatch(/^The model server sent a malformed stream chunk: \{"choices"/);
  });

  it('reports a stream cut without [DONE] or a finish reason', async () => {
    const { conversation, model, deps } = setup([
      rechunk([
        textChunk('Cut '),
        textChunk('here'),
        toolCallChunk(0, { id: 'c', name: 'echo', arguments: '{}' })
      ])
    ]);
    await runTurn(conversation, deps, 'Go', [], never);
    const reply = lastAssistant(conversation);
    expect(reply).toMatchObject({ content: 'Cut here', status: 'interrupted' });
    expect(reply.error).toMatch(/ended the answer before it finished/);
    // A call from a cut stream is not run.
    expect(toolMessages(conversation)).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it('reports truncated tool-call JSON instead of running the call', async () => {
    const { conversation, model, deps, counter } = setup([
      [
        textChunk('Counting.'),
        toolCallChunk(0, { id: 'c', name: 'counter', arguments: '{"by": ' }),
        finishChunk('length'),
        DONE
      ]
    ]);
    await runTurn(conversation, deps, 'Go', [], never);
    const reply = lastAssistant(conversation);
    expect(reply).toMatchObject({ content: 'Counting.', status: 'interrupted' });
    expect(reply.error).toMatch(/counter had truncated or invalid JSON arguments/);
    expect(counter.count).toBe(0);
    expect(model.requests).toHaveLength(1);
  });

  it('reports a text tool call cut off by the end of the reply', async () => {
    const { conversation, deps } = setup([
      rechunk([
        textChunk('Drawing.<tool_call>{"name": "echo", "arguments": {"text": "ab'),
        finishChunk('length'),
        DONE
      ])
    ]);
    await runTurn(conversation, deps, 'Go', [], never);
    const reply = lastAssistant(conversation);
    expect(reply).toMatchObject({ content: 'Drawing.', status: 'interrupted' });
    expect(reply.error).toMatch(/cut off/);
    expect(toolMessages(conversation)).toEqual([]);
  });

  it('stops a model that never stops writing, and closes its stream', async () => {
    let chunks = 0;
    let closed = false;
    const { conversation, deps } = setup([
      async function* (): AsyncGenerator<string> {
        try {
          for (;;) {
            chunks += 1;
            yield textChunk('x'.repeat(10_000));
          }
        } finally {
          closed = true;
        }
      }
    ]);
    await runTurn(conversation, deps, 'Go', [], never);
    const reply = lastAssistant(conversation);
    expect(reply.status).toBe('interrupted');
    expect(reply.error).toMatch(/kept writing past/);
    expect(reply.content.length).toBeGreaterThan(MAX_ANSWER_CHARS);
    expect(reply.content.length).toBeLessThanOrEqual(MAX_ANSWER_CHARS + 10_000);
    expect(chunks).toBeLessThanOrEqual(Math.ceil(MAX_ANSWER_CHARS / 10_000) + 1);
    expect(closed).toBe(true);
  });

  it('retries once without images when the model refuses them, with a notice', async () => {
    const { conversation, model, deps } = setup([
      toolCalls([{ id: 'v1', name: 'viewer', arguments: {} }]),
      async function* (): AsyncGenerator<string> {
        throw new ModelRequestError(
          400,
          'The model server answered 400: image input is not supported.',
          'rejected'
        );
      },
      answer('I read the text instead.')
    ]);
    await runTurn(conversation, deps, 'Look', [], never);
    expect(model.requests.map(hasImages)).toEqual([false, true, false]);
    expect(deps.quirks?.of(settings.endpoint, settings.model).imagesRefused).toBe(true);
    expect(conversation.notice).toBe("This model can't see images; views are described in text.");
    // The refused attempt left nothing behind.
    expect(readable(conversation.entries).map(entry => entry.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant'
    ]);
    expect(lastAssistant(conversation)).toMatchObject({
      content: 'I read the text instead.',
      status: 'completed'
    });
    expect(lastAssistant(conversation)).not.toHaveProperty('error');
    // The views stay for the user.
    expect(conversation.views('v1')).toEqual([view]);
  });

  it('retries only once: a second refusal is an error on the turn', async () => {
    const refuse: ScriptedReply = async function* (): AsyncGenerator<string> {
      throw new ModelRequestError(400, 'Bad request: messages too long.', 'rejected');
    };
    const { conversation, model, deps } = setup([
      toolCalls([{ id: 'v1', name: 'viewer', arguments: {} }]),
      refuse,
      refuse
    ]);
    await runTurn(conversation, deps, 'Look', [], never);
    expect(model.requests.map(hasImages)).toEqual([false, true, false]);
    expect(lastAssistant(conversation)).toMatchObject({
      status: 'interrupted',
      error: 'Bad request: messages too long.'
    });
  });

  it('does not retry a 400 to a request without images', async () => {
    const { conversation, model, deps } = setup([
      async function* (): AsyncGenerator<string> {
        throw new ModelRequestError(400, 'Unknown model "scripted".', 'rejected');
      }
    ]);
    await runTurn(conversation, deps, 'Hi', [], never);
    expect(model.requests).toHaveLength(1);
    expect(conversation.notice).toBeUndefined();
    expect(lastAssistant(conversation).error).toBe('Unknown model "scripted".');
  });

  it('tells the model in text when images are off', async () => {
    const { conversation, model, deps } = setup(
      [toolCalls([{ id: 'v1', name: 'viewer', arguments: {} }]), answer('OK.')],
      { acceptsImages: 'no' }
    );
    await runTurn(conversation, deps, 'Look', [], never);
    expect(model.requests.map(hasImages)).toEqual([false, false]);
    expect(toolMessages(conversation)[0].content).toMatch(
      /^Rendered the map\. .*does not accept images/
    );
  });
});
