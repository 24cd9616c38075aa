/**
 * The agent loop (SPEC section 5) against a scripted model: only the model transport is scripted
 * (SSE text in arbitrary chunks); the conversation, tool registry, context builder and stream
 * decoding are the real ones (helpers/agent.ts). This file: answers as they stream, tool rounds in
 * call order, tool calls written as text, and the round guard. Stop, faults and images have their
 * own files (chat-agent-*.test.ts).
 */
import { buildChatItems } from '../chat/cards';
import { runTurn } from '../chat/agent';
import { requestMessages } from './helpers/scripted-model';
import { DONE, answer, finishChunk, rechunk, textChunk, toolCalls } from './helpers/sse';
import {
  readable,
  assistants,
  lastAssistant,
  never,
  settings,
  setup,
  toolMessages
} from './helpers/agent';

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
});
