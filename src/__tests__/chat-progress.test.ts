/**
 * Progress while a tool call is being written (issue 11, item 2): the stream layer names the call
 * and counts its bytes as they arrive, for structured `tool_calls` and text calls alike; the agent
 * passes that to the conversation's live state; the chat items show it as a `writing` card with the
 * id the finished call gets, and drop it when the reply stops or fails first. Only the model is
 * scripted.
 */
import { z } from 'zod';

import { runTurn, WRITING_STEP_BYTES, type AgentDeps } from '../chat/agent';
import { buildChatItems, type ChatItem, type ToolCard } from '../chat/cards';
import { Conversation } from '../chat/conversation';
import { ModelQuirkMemory } from '../chat/model-quirks';
import {
  ChatStreamAccumulator,
  MAX_WRITING_CALLS,
  SseDecoder,
  type WritingToolCall
} from '../chat/stream';
import { ToolRegistry } from '../tools/registry';
import { deferred, untilAborted } from './helpers/async';
import { ScriptedModel, type ScriptedReply } from './helpers/scripted-model';
import { DONE, answer, finishChunk, textChunk, toolCallChunk } from './helpers/sse';

/** A ~3 KB argument, with a multi-byte character so bytes and characters differ. */
const LONG_TEXT = `${'<rect width="1" height="1"/>'.repeat(100)}é`;
const ARGUMENTS = JSON.stringify({ text: LONG_TEXT });

/** Cut a string into pieces of `size` characters. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) {
    out.push(text.slice(i, i + size));
  }
  return out;
}

/** Feed SSE text to an accumulator, returning `writing` after each payload. */
function writingByPayload(chunks: string[]): {
  snapshots: WritingToolCall[][];
  accumulator: ChatStreamAccumulator;
} {
  const decoder = new SseDecoder();
  const accumulator = new ChatStreamAccumulator('m1_c');
  const snapshots: WritingToolCall[][] = [];
  for (const chunk of chunks) {
    for (const payload of decoder.push(chunk)) {
      accumulator.push(payload);
      snapshots.push(accumulator.writing);
    }
  }
  return { snapshots, accumulator };
}

describe('ChatStreamAccumulator.writing', () => {
  it('names a structured call from its first delta and counts its argument bytes', () => {
    const parts = pieces(ARGUMENTS, 300);
    const { snapshots, accumulator } = writingByPayload([
      textChunk('Drawing.'),
      toolCallChunk(0, { id: 'call_svg', name: 'echo', arguments: '' }),
      ...parts.map(part => toolCallChunk(0, { arguments: part })),
      finishChunk('tool_calls'),
      DONE
    ]);
    expect(snapshots[0]).toEqual([]);
    expect(snapshots[1]).toEqual([{ id: 'call_svg', name: 'echo', bytes: 0 }]);
    const sizes = snapshots.slice(1).map(writing => writing[0].bytes);
    expect(sizes[2]).toBe(600);
    expect(sizes[sizes.length - 1]).toBe(Buffer.byteLength(ARGUMENTS));
    expect(Buffer.byteLength(ARGUMENTS)).toBe(ARGUMENTS.length + 1);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    const result = accumulator.finish();
    expect(result.calls.map(call => call.id)).toEqual(['call_svg']);
  });

  it('gives a structured call without an id the id it will finish with', () => {
    const { snapshots, accumulator } = writingByPayload([
      toolCallChunk(0, { name: 'ec' }),
      toolCallChunk(0, { name: 'ho', arguments: '{"text": "hi"}' }),
      finishChunk('tool_calls')
    ]);
    expect(snapshots.map(writing => writing.map(call => call.name))).toEqual([
      ['ec'],
      ['echo'],
      ['echo']
    ]);
    expect(snapshots[1][0].id).toBe(accumulator.finish().calls[0].id);
  });

  it('names a text call as soon as its name is whole, with the id it will finish with', () => {
    const markup = `<tool_call>{"name": "echo", "arguments": ${ARGUMENTS}}</tool_call>`;
    const chunks = ['Drawing.', ...pieces(markup, 7)].map(textChunk);
    const { snapshots, accumulator } = writingByPayload([...chunks, finishChunk('stop'), DONE]);
    const named = snapshots.findIndex(writing => writing.length > 0);
    // The name is whole after `<tool_call>{"name": "echo"` (27 characters: the 4th piece of 7).
    expect(named).toBe(1 + 3);
    expect(snapshots[named]).toEqual([{ id: 'm1_c_t1', name: 'echo', bytes: 28 }]);
    const last = snapshots[snapshots.length - 1];
    expect(last).toEqual([{ id: 'm1_c_t1', name: 'echo', bytes: Buffer.byteLength(markup) }]);
    const result = accumulator.finish();
    expect(result.calls.map(call => [call.id, call.name])).toEqual([['m1_c_t1', 'echo']]);
    expect(result.content).toBe('Drawing.');
  });
});

describe('ChatStreamAccumulator with hostile call indexes and counts', () => {
  it('keeps calls dense whatever index the server gives (a sparse array would take minutes)', () => {
    const started = Date.now();
    const { snapshots, accumulator } = writingByPayload([
      toolCallChunk(1_000_000_000, { name: 'echo', arguments: '{"text": "far"}' }),
      toolCallChunk(0, { name: 'echo', arguments: '{"text": "near"}' }),
      finishChunk('tool_calls')
    ]);
    expect(snapshots[2].map(call => call.id)).toEqual(['m1_c_1', 'm1_c_2']);
    expect(accumulator.finish().calls.map(call => call.arguments.text)).toEqual(['far', 'near']);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reports at most MAX_WRITING_CALLS calls in progress, the first ones', () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      toolCallChunk(i, { name: `t${i}`, arguments: '{}' })
    );
    const text = textChunk(
      '<tool_call>{"name": "x", "arguments": {}}</tool_call>'.repeat(3) + '<tool_call>{"name": "y"'
    );
    const { snapshots, accumulator } = writingByPayload([...many, text, finishChunk('stop')]);
    const last = snapshots[snapshots.length - 1];
    expect(last.map(call => call.name)).toEqual(
      Array.from({ length: MAX_WRITING_CALLS }, (_, i) => `t${i}`)
    );
    expect(accumulator.finish().calls).toHaveLength(43);
    const few = writingByPayload([many[0], text]).snapshots;
    expect(few[1].map(call => [call.id, call.name])).toEqual([
      ['m1_c_1', 't0'],
      ['m1_c_t1', 'x'],
      ['m1_c_t2', 'x'],
      ['m1_c_t3', 'x'],
      ['m1_c_t4', 'y']
    ]);
  });
});

function setup(replies: ReadonlyArray<ScriptedReply>): {
  conversation: Conversation;
  deps: AgentDeps;
} {
  const registry = new ToolRegistry();
  registry.register({
    name: 'echo',
    description: 'Repeat the text',
    input: z.object({ text: z.string() }),
    mutates: false,
    run: async args => ({ status: 'completed', text: `echo: ${args.text.length} characters` })
  });
  const deps: AgentDeps = {
    registry,
    transport: new ScriptedModel(replies).transport,
    settings: {
      endpoint: 'http://127.0.0.1:9/v1',
      model: 'scripted',
      contextBudget: 100_000,
      maxToolRounds: 4,
      acceptsImages: 'auto'
    },
    toolHost: null,
    quirks: new ModelQuirkMemory()
  };
  return { conversation: new Conversation(), deps };
}

function toolCards(items: ChatItem[]): ToolCard[] {
  return items.filter((item): item is ToolCard => item.kind === 'tool');
}

/** The tool cards shown after every change of the conversation. */
function recordCards(conversation: Conversation): ToolCard[][] {
  const shown: ToolCard[][] = [];
  conversation.changed.connect(() =>
    shown.push(toolCards(buildChatItems(conversation.entries, conversation.live)))
  );
  return shown;
}

const never = new AbortController().signal;

describe('runTurn: the card of a call being written', () => {
  it('shows a structured call as it is written, then the finished card in its place', async () => {
    const { conversation, deps } = setup([
      [
        textChunk('Drawing.'),
        toolCallChunk(0, { id: 'call_long', name: 'echo', arguments: '' }),
        ...pieces(ARGUMENTS, 50).map(part => toolCallChunk(0, { arguments: part })),
        finishChunk('tool_calls'),
        DONE
      ],
      answer('Done.')
    ]);
    const shown = recordCards(conversation);
    await runTurn(conversation, deps, 'Draw', [], never);

    const writing = shown.flat().filter(card => card.state === 'writing');
    expect(writing[0]).toMatchObject({ call: { id: 'call_long', name: 'echo' }, bytes: 0 });
    const sizes = writing.map(card => card.bytes ?? -1);
    // It grew in steps, throttled to one update per step instead of one per delta.
    expect(new Set(sizes).size).toBeGreaterThan(10);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    const updates = shown.filter(cards => cards.some(card => card.state === 'writing')).length;
    expect(updates).toBeLessThanOrEqual(Buffer.byteLength(ARGUMENTS) / WRITING_STEP_BYTES + 3);
    // The finished card has the same id, in the same place, and never both at once.
    const messageId = writing[0].messageId;
    for (const cards of shown) {
      expect(cards.filter(card => card.call.id === 'call_long').length).toBeLessThanOrEqual(1);
    }
    const after = shown.findIndex(cards => cards.some(card => card.state === 'pending'));
    expect(toolCards(buildChatItems(conversation.entries))).toEqual([
      expect.objectContaining({ call: expect.objectContaining({ id: 'call_long' }), messageId })
    ]);
    expect(after).toBeGreaterThan(0);
    expect(shown[after - 1].map(card => card.state)).toEqual(['writing']);
    expect(conversation.live).toEqual({});
  });

  it('shows a text (Hermes) call as soon as its name is known, under the id it finishes with', async () => {
    const markup = `<tool_call>{"name": "echo", "arguments": ${ARGUMENTS}}</tool_call>`;
    const { conversation, deps } = setup([
      [...['Drawing.', ...pieces(markup, 40)].map(textChunk), finishChunk('stop'), DONE],
      answer('Done.')
    ]);
    const shown = recordCards(conversation);
    await runTurn(conversation, deps, 'Draw', [], never);
    const writing = shown.flat().filter(card => card.state === 'writing');
    expect(writing[0].call.name).toBe('echo');
    expect(writing[0].bytes).toBe(40);
    expect(writing[writing.length - 1].bytes).toBeGreaterThan(
      Buffer.byteLength(markup) - WRITING_STEP_BYTES
    );
    const finished = toolCards(buildChatItems(conversation.entries));
    expect(finished.map(card => [card.call.id, card.state])).toEqual([
      [writing[0].call.id, 'completed']
    ]);
  });

  it('drops the card of a call that Stop cut off', async () => {
    const reached = deferred();
    const { conversation, deps } = setup([
      async function* (_request, signal): AsyncGenerator<string> {
        yield textChunk('Drawing.');
        yield toolCallChunk(0, {
          id: 'call_cut',
          name: 'echo',
          arguments: ARGUMENTS.slice(0, 400)
        });
        reached.resolve();
        await untilAborted(signal);
      }
    ]);
    const abort = new AbortController();
    const turn = runTurn(conversation, deps, 'Draw', [], abort.signal);
    await reached.promise;
    expect(toolCards(buildChatItems(conversation.entries, conversation.live))).toEqual([
      expect.objectContaining({ state: 'writing', bytes: 400 })
    ]);
    abort.abort();
    await turn;
    expect(conversation.live).toEqual({});
    expect(toolCards(buildChatItems(conversation.entries, conversation.live))).toEqual([]);
  });

  it('drops the card of a text call when the stream fails, and says which call was cut off', async () => {
    const { conversation, deps } = setup([
      [textChunk('Drawing.'), textChunk('<tool_call>{"name": "echo", "arguments": {"text": "abc')]
    ]);
    const shown = recordCards(conversation);
    await runTurn(conversation, deps, 'Draw', [], never);
    expect(shown.flat().some(card => card.state === 'writing')).toBe(true);
    expect(toolCards(buildChatItems(conversation.entries, conversation.live))).toEqual([]);
    const last = conversation.entries[conversation.entries.length - 1];
    expect(last).toMatchObject({ role: 'assistant', error: expect.stringContaining('echo') });
  });
});

describe('buildChatItems with calls being written', () => {
  const entries = [
    { id: 'u1', role: 'user' as const, content: 'Draw' },
    {
      id: 'a1',
      role: 'assistant' as const,
      content: 'Drawing.',
      status: 'interrupted' as const,
      tool_calls: [{ id: 'c1', name: 'echo', arguments: { text: 'done' } }]
    }
  ];
  const writing = [
    { id: 'c1', name: 'echo', bytes: 20 },
    { id: 'c2', name: 'present_svg', bytes: 1229 }
  ];

  it('puts writing cards after the streaming message, after its finished calls', () => {
    const items = buildChatItems(entries, { streamingId: 'a1', writing });
    expect(
      items.map(item => (item.kind === 'tool' ? `${item.call.id}:${item.state}` : item.kind))
    ).toEqual(['user', 'assistant', 'c1:pending', 'c2:writing']);
    expect(items[3]).toMatchObject({
      messageId: 'a1',
      bytes: 1229,
      call: { name: 'present_svg', arguments: {} }
    });
  });

  it('shows none for a message that is not streaming, nor once the stream has ended', () => {
    expect(toolCards(buildChatItems(entries, { streamingId: 'other', writing }))).toHaveLength(1);
    expect(toolCards(buildChatItems(entries, { streamingId: 'a1' }))).toHaveLength(1);
  });
});
