/**
 * A network read can hold thousands of stream events (a fast server, a busy tab). The agent tells
 * the conversation about new text once per read or time slice, not per event, and gives the
 * browser a turn between slices: handled in one go, such a read made a main-thread task of up to
 * 0.9 s while a 2 MB reply streamed (`ui-tests/bench/stream-scroll.spec.ts`). Only the model is
 * scripted.
 */
import { runTurn, type AgentDeps } from '../chat/agent';
import { Conversation } from '../chat/conversation';
import { ModelQuirkMemory } from '../chat/model-quirks';
import { ToolRegistry } from '../tools/registry';
import { ScriptedModel } from './helpers/scripted-model';
import { DONE, finishChunk, textChunk } from './helpers/sse';

const EVENTS = 40_000;

/** A reply of `EVENTS` one-character deltas, all in a single network read. */
function oneRead(): string[] {
  const events: string[] = [];
  for (let i = 0; i < EVENTS; i++) {
    events.push(textChunk(String(i % 10)));
  }
  return [events.join('') + finishChunk('stop') + DONE];
}

function setup(): { conversation: Conversation; deps: AgentDeps } {
  const deps: AgentDeps = {
    registry: new ToolRegistry(),
    transport: new ScriptedModel([oneRead()]).transport,
    settings: {
      endpoint: 'http://127.0.0.1:9/v1',
      model: 'scripted',
      contextBudget: 1_000_000,
      maxToolRounds: 1,
      acceptsImages: 'auto'
    },
    toolHost: null,
    quirks: new ModelQuirkMemory()
  };
  return { conversation: new Conversation(), deps };
}

const never = new AbortController().signal;

describe('runTurn with many events in one read', () => {
  it('updates the conversation per read or slice, not per event, and keeps every character', async () => {
    const { conversation, deps } = setup();
    let changes = 0;
    conversation.changed.connect(() => changes++);
    await runTurn(conversation, deps, 'Count', [], never);
    const reply = conversation.entries[conversation.entries.length - 1];
    expect(reply.role).toBe('assistant');
    expect(reply.role === 'assistant' && reply.content.length).toBe(EVENTS);
    expect(reply.role === 'assistant' && reply.status).toBe('completed');
    // A few per slice at most; per event it was over 40,000.
    expect(changes).toBeLessThan(EVENTS / 100);
  });

  it('lets a timer run while a long read is handled', async () => {
    const { conversation, deps } = setup();
    const order: string[] = [];
    let armed = false;
    conversation.changed.connect(() => {
      if (!armed && conversation.live.streamingId) {
        armed = true;
        setTimeout(() => order.push('timer'), 0);
      }
      const last = conversation.entries[conversation.entries.length - 1];
      if (last.role === 'assistant' && last.content.length > 0) {
        order.push(last.status === 'completed' ? 'completed' : 'text');
      }
    });
    await runTurn(conversation, deps, 'Count', [], never);
    // The timer ran between slices: text kept arriving after it, before the reply completed.
    const timer = order.indexOf('timer');
    expect(timer).toBeGreaterThan(-1);
    expect(order.slice(timer + 1)).toContain('text');
    expect(order[order.length - 1]).toBe('completed');
  });

  it('stops between slices when the signal is aborted', async () => {
    const { conversation, deps } = setup();
    const stop = new AbortController();
    conversation.changed.connect(() => {
      const last = conversation.entries[conversation.entries.length - 1];
      if (last.role === 'assistant' && last.content.length > 0) {
        stop.abort();
      }
    });
    await runTurn(conversation, deps, 'Count', [], stop.signal);
    const reply = conversation.entries[conversation.entries.length - 1];
    expect(reply.role === 'assistant' && reply.status).toBe('interrupted');
    expect(reply.role === 'assistant' && reply.content.length).toBeLessThan(EVENTS);
  });
});
