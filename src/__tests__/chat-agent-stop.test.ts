/**
 * Stop in the middle of a turn (the agent loop against a scripted model, helpers/agent.ts): the
 * partial text is kept and marked interrupted, calls that Stop cut off are recorded in call order,
 * and no further call starts.
 */
import { buildChatItems } from '../chat/cards';
import { runTurn } from '../chat/agent';
import { deferred, untilAborted } from './helpers/async';
import { until } from './helpers/conversation';
import { rechunk, textChunk, toolCallChunk, toolCalls } from './helpers/sse';
import { assistants, lastAssistant, setup, toolMessages } from './helpers/agent';

describe('runTurn and Stop', () => {
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
});
