/**
 * The chat against a real llama.cpp `llama-server` (issue 8, item 9), through the real figure
 * server's model proxy: streaming text, a real tool call becoming a card whose result goes back
 * under the server's own id, and the real 500 image refusal falling back to text. The model is a
 * tiny random-weights one the test writes; seeded runs are repeatable. Skipped, with the reason,
 * where the server could not be built (no compiler); `scripts/test.sh` builds it first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ServerConnection } from '@jupyterlab/services';
import { z } from 'zod';

import { NOTICES, runTurn, type AgentDeps } from '../chat/agent';
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

// A 1×1 PNG: the server refuses any image without a projector, whatever it shows.
const view: ToolImage = {
  png: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  width: 1,
  height: 1,
  caption: 'map'
};

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
   * The real transport, with `tool_choice` set per request: "required" first (random weights
   * rarely start a call on their own), then "none" so the turn ends with text.
   */
  function transport(choices: Array<'required' | 'none' | undefined>): ModelTransport {
    const real = figureServerTransport(
      ServerConnection.makeSettings({ baseUrl: `${figure.url}/` })
    );
    let count = 0;
    return (endpoint, body, signal) => {
      const choice = choices[Math.min(count++, choices.length - 1)];
      return real(
        endpoint,
        choice ? { ...body, tool_choice: choice, seed: 11 } : { ...body, seed: 11 },
        signal
      );
    };
  }

  function deps(
    registry: ToolRegistry,
    choices: Array<'required' | 'none' | undefined>
  ): AgentDeps {
    return {
      registry,
      transport: transport(choices),
      settings: {
        endpoint: llama.endpoint,
        model: 'tiny',
        contextBudget: 100_000,
        maxToolRounds: 3,
        acceptsImages: 'yes'
      },
      toolHost: null,
      quirks: new ModelQuirkMemory()
    };
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
      await runTurn(
        conversation,
        deps(new ToolRegistry(), [undefined]),
        'Say something',
        [],
        never
      );
      const reply = messages(conversation).find(
        (m): m is AssistantMessage => m.role === 'assistant'
      );
      expect(reply).toMatchObject({ status: 'completed' });
      expect(reply).not.toHaveProperty('error');
      return { content: reply?.content ?? '', updates };
    };
    const first = await run();
    expect(first.content.length).toBeGreaterThan(0);
    expect(first.updates).toBeGreaterThan(4);
    expect((await run()).content).toBe(first.content);
  }, 120_000);

  it('turns a real tool call into a card whose result goes back with the server id', async () => {
    const seen: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register({
      name: 'present_svg',
      description: 'Show a static SVG figure inline',
      input: z.object({ svg: z.string(), alt: z.string() }),
      mutates: false,
      run: async args => {
        seen.push(args);
        return { status: 'completed', text: `SVG presented inline: ${args.alt}` };
      }
    });
    const conversation = new Conversation();
    await runTurn(conversation, deps(registry, ['required', 'none']), 'Draw a box', [], never);
    const all = messages(conversation);
    const call = all.find((m): m is AssistantMessage => m.role === 'assistant')?.tool_calls?.[0];
    expect(call?.name).toBe('present_svg');
    // The id is the server's own, not one the chat made up.
    expect(call?.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(call?.id).not.toMatch(/_c_\d+$/);
    expect(seen).toEqual([call?.arguments]);
    const result = all.find((m): m is ToolMessage => m.role === 'tool');
    expect(result).toMatchObject({ tool_call_id: call?.id, status: 'completed' });
    const card = buildChatItems(conversation.entries).find(item => item.kind === 'tool');
    expect(card).toMatchObject({ kind: 'tool', state: 'completed' });
    // The server took the result under its id and answered.
    expect(all[all.length - 1]).toMatchObject({ role: 'assistant', status: 'completed' });
    expect(all[all.length - 1]).not.toHaveProperty('error');
  }, 120_000);

  it('falls back to text when the server refuses the views with its real 500', async () => {
    const registry = new ToolRegistry();
    registry.register({
      name: 'viewer',
      description: 'Renders a view of the picture',
      input: z.object({}),
      mutates: false,
      run: async () => ({ status: 'completed', text: 'Rendered the map.', images: [view] })
    });
    const conversation = new Conversation();
    await runTurn(conversation, deps(registry, ['required', 'none']), 'Look', [], never);
    expect(conversation.notice).toBe(NOTICES.images);
    const all = messages(conversation);
    expect(all.map(m => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(all[3]).toMatchObject({ status: 'completed' });
    expect(all[3]).not.toHaveProperty('error');
  }, 120_000);
});
