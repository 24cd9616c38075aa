/**
 * The agent loop's test rig: the real conversation, tool registry and context builder around a
 * scripted model transport, with four test tools (a read-only echo, a mutating counter, a call
 * that runs until Stop, a viewer) and readers for what the turn stored.
 */
import { z } from 'zod';

import type { AgentDeps, AgentSettings } from '../../chat/agent';
import { Conversation } from '../../chat/conversation';
import { ModelQuirkMemory } from '../../chat/model-quirks';
import { ToolRegistry, type ToolImage, type ToolOutput } from '../../tools/registry';
import type {
  AssistantMessage,
  StoredMessage,
  ToolMessage,
  UnreadableEntry
} from '../../tools/transcript';
import { deferred, untilAborted } from './async';
import { ScriptedModel, type ScriptedReply } from './scripted-model';

export const settings: AgentSettings = {
  endpoint: 'http://127.0.0.1:9/v1',
  model: 'scripted',
  temperature: 0,
  contextBudget: 100_000,
  maxToolRounds: 4,
  acceptsImages: 'auto'
};

export const view: ToolImage = {
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

export function setup(
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

export function readable(entries: ReadonlyArray<StoredMessage | UnreadableEntry>): StoredMessage[] {
  return entries.filter((entry): entry is StoredMessage => entry.role !== 'unreadable');
}

export function assistants(
  conversation: Conversation
): Array<AssistantMessage & { error?: unknown }> {
  return readable(conversation.entries).filter(
    (entry): entry is AssistantMessage => entry.role === 'assistant'
  );
}

export function toolMessages(conversation: Conversation): ToolMessage[] {
  return readable(conversation.entries).filter(
    (entry): entry is ToolMessage => entry.role === 'tool'
  );
}

export function lastAssistant(conversation: Conversation): AssistantMessage & { error?: unknown } {
  const all = assistants(conversation);
  return all[all.length - 1];
}

export const never = new AbortController().signal;
