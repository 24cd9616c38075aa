/**
 * The chat against a real llama.cpp `llama-server` (issue 8, item 9), through the real figure
 * server's model proxy and the real agent: streamed text (repeatable), a native tool call that
 * becomes a card under the server's own id, the real 500 image refusal falling back to text, and
 * the server's own mid-stream `data: {"error":…}` ending the turn with an error card.
 *
 * The model is the tiny designed one of `tests/llama_tiny_model.py`: it writes "Here is the
 * figure." and, when `tool_choice` is "required" (llama.cpp then forbids ending before a call),
 * that text and a `present_svg` call. The tests only set `tool_choice` and, for the mid-stream
 * error, the request fields that make llama-server emit it. Skipped, with the reason, where the
 * server could not be built (no compiler); `scripts/test.sh` builds it first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ServerConnection } from '@jupyterlab/services';
import { z } from 'zod';

import { NOTICES, VIEWS_NOT_SENT_TEXT, runTurn, type AgentDeps } from '../chat/agent';
import { buildChatItems } from '../chat/cards';
import { Conversation } from '../chat/conversation';
import { figureServerTransport, type ModelTransport } from '../chat/model-client';
import { ModelQuirkMemory } from '../chat/model-quirks';
import { ToolRegistry, type ToolImage } from '../tools/registry';
import type { AssistantMessage, StoredMessage, ToolMessage } from '../tools/transcript';
import { llamaServerSkipReason, startLlamaServer, type LlamaServer } from './helpers/llama-server';
import { closeServer, startFigureServer } from './helpers/loopback';

const skip = llamaServerSkipReason();
const describeReal = skip === null ? describe : describe.skip;

/** What the tiny model writes as text, and as the `present_svg` arguments. */
const TEXT = 'Here is the figure.';
const SVG =
  "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'><rect width='8' height='8' fill='teal'/></svg>";

// A 1×1 PNG: the server refuses any image without a projector, whatever it shows.
const view: ToolImage = {
  png: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  width: 1,
  height: 1,
  caption: 'the figure'
};

type Extra = Record<string, unknown>;

describeReal(`a real llama.cpp server${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let root: string;
  let figure: { server: Server; url: string };
  let llama: LlamaServer;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'figure-chat-real-llama-'));
    figure = await startFigureServer(root);
    llama = await startLlamaServer();
  }, 90_000);

  afterAll(async () => {
    await llama?.stop();
    await closeServer(figure.server);
    rmSync(root, { recursive: true, force: true });
  });

  /**
   * The real transport through the figure server, adding `extras[i]` to the i-th request (the
   * last one repeats) and keeping each request body for the test to read.
   */
  function transport(extras: Extra[], sent: Extra[]): ModelTransport {
    const real = figureServerTransport(
      ServerConnection.makeSettings({ baseUrl: `${figure.url}/` })
    );
    return (endpoint, body, signal) => {
      const extra = extras[Math.min(sent.length, extras.length - 1)];
      const request = { ...body, seed: 11, ...extra };
      sent.push(request);
      return real(endpoint, request, signal);
    };
  }

  function deps(registry: ToolRegistry, extras: Extra[], sent: Extra[] = []): AgentDeps {
    return {
      registry,
      transport: transport(extras, sent),
      settings: {
        endpoint: llama.endpoint,
        model: 'tiny',
        contextBudget: 100_000,
        maxToolRounds: 3,
        acceptsImages: 'auto'
      },
      toolHost: null,
      quirks: new ModelQuirkMemory()
    };
  }

  /** A `present_svg` with the real tool's parameters, keeping what it was called with. */
  function presentSvg(seen: unknown[], images: ToolImage[] = []): ToolRegistry {
    const registry = new ToolRegistry();
    registry.register({
      name: 'present_svg',
      description: 'Show a static SVG figure inline',
      input: z.object({ svg: z.string(), alt: z.string() }),
      mutates: false,
      run: async args => {
        seen.push(args);
        return {
          status: 'completed',
          text: `SVG presented inline: ${args.alt}`,
          ...(images.length ? { images } : {})
        };
      }
    });
    return registry;
  }

  function messages(conversation: Conversation): StoredMessage[] {
    return conversation.entries.filter((e): e is StoredMessage => e.role !== 'unreadable');
  }

  const never = new AbortController().signal;

  it('streams text, repeatably with a seed', async () => {
    const run = async (): Promise<{ content: string; updates: number }> => {
      const conversation = new Conversation();
      let updates = 0;
      conversation.changed.connect(() => (updates += 1));
      await runTurn(conversation, deps(new ToolRegistry(), [{}]), 'Say something', [], never);
      const reply = messages(conversation).find(
        (m): m is AssistantMessage => m.role === 'assistant'
      );
      expect(reply).toMatchObject({ status: 'completed' });
      expect(reply).not.toHaveProperty('error');
      return { content: reply?.content ?? '', updates };
    };
    const first = await run();
    expect(first.content).toBe(TEXT);
    expect(first.updates).toBeGreaterThan(4);
    expect((await run()).content).toBe(first.content);
  }, 60_000);

  it('turns a real native tool call into a card whose result goes back with the server id', async () => {
    const seen: unknown[] = [];
    const sent: Extra[] = [];
    const conversation = new Conversation();
    await runTurn(
      conversation,
      deps(presentSvg(seen), [{ tool_choice: 'required' }, {}], sent),
      'Draw a box',
      [],
      never
    );
    const all = messages(conversation);
    expect(all.filter(m => 'error' in m)).toEqual([]);
    expect(all.map(m => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const first = all[1] as AssistantMessage;
    expect(first).toMatchObject({ content: TEXT, status: 'completed' });
    const call = first.tool_calls?.[0];
    expect(first.tool_calls).toHaveLength(1);
    expect(call?.name).toBe('present_svg');
    // llama-server's own id (32 random alphanumerics), not one the chat made up (`…_c_1`).
    expect(call?.id).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(seen).toEqual([{ svg: SVG, alt: 'a tiny figure' }]);
    expect(all[2]).toMatchObject({ role: 'tool', tool_call_id: call?.id, status: 'completed' });
    const card = buildChatItems(conversation.entries).find(item => item.kind === 'tool');
    expect(card).toMatchObject({ kind: 'tool', state: 'completed', call: { id: call?.id } });
    // The result went back under the server's id, and the server answered it with text.
    const followUp = JSON.stringify(sent[1]);
    expect(followUp).toContain(`"tool_call_id":"${call?.id}"`);
    expect(all[3]).toMatchObject({ role: 'assistant', content: TEXT, status: 'completed' });
    expect(all[3]).not.toHaveProperty('error');
  }, 60_000);

  it('falls back to text once when the server refuses the views with its real 500', async () => {
    const seen: unknown[] = [];
    const sent: Extra[] = [];
    const conversation = new Conversation();
    await runTurn(
      conversation,
      deps(presentSvg(seen, [view]), [{ tool_choice: 'required' }, {}], sent),
      'Draw and look',
      [],
      never
    );
    const all = messages(conversation);
    // First, so that a failure shows the error cards the turn ended with.
    expect(all.filter(m => 'error' in m)).toEqual([]);
    expect(all.map(m => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(conversation.notice).toBe(NOTICES.images);
    // Three requests: the call, the views refused (500), the same round again as text.
    expect(sent).toHaveLength(3);
    expect(JSON.stringify(sent[1])).toContain('image_url');
    expect(JSON.stringify(sent[2])).not.toContain('image_url');
    expect((all[2] as ToolMessage).content).toContain(VIEWS_NOT_SENT_TEXT.trim());
    expect(all[3]).toMatchObject({ content: TEXT, status: 'completed' });
    expect(all[3]).not.toHaveProperty('error');
  }, 60_000);

  it("ends the turn with an error card that keeps the partial text on llama-server's mid-stream error", async () => {
    // Two completions (`n: 2`) that never end (`ignore_eos`, and no `<tool_call>`) fill their
    // slots; with context shift on, llama-server then sends `data: {"error":…}` and no [DONE].
    // Its own server, with slots of 512 tokens, so they fill after a few hundred tokens.
    const small = await startLlamaServer(1024);
    const extra = {
      n: 2,
      ignore_eos: true,
      max_tokens: 4000,
      logit_bias: { [String(llama.tokens.tool_call)]: -100 }
    };
    const conversation = new Conversation();
    const toSmall = { ...deps(new ToolRegistry(), [extra]) };
    try {
      await runTurn(
        conversation,
        { ...toSmall, settings: { ...toSmall.settings, endpoint: small.endpoint } },
        'Keep going',
        [],
        never
      );
    } finally {
      await small.stop();
    }
    const all = messages(conversation);
    expect(all.map(m => m.role)).toEqual(['user', 'assistant']);
    const reply = all[1] as AssistantMessage;
    expect(reply.status).toBe('interrupted');
    expect(reply).toHaveProperty('error');
    expect(String((reply as AssistantMessage & { error?: unknown }).error)).toContain(
      'context shift cannot be used for shared prompt'
    );
    // The two completions stream interleaved; the chat keeps all it received.
    expect(reply.content.length).toBeGreaterThan(200);
    expect(reply.content).toContain('Here');
    expect(reply.content).toContain('figure');
    expect(small.log()).toContain('context shift cannot be used for shared prompt');
  }, 60_000);
});
