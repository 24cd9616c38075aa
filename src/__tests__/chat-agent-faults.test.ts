/**
 * Transport and stream faults (the agent loop against a scripted model, helpers/agent.ts): request
 * errors, malformed chunks, streams cut short, truncated tool calls and runaway answers end the
 * turn with an actionable error and keep what came before.
 */
import { MAX_ANSWER_CHARS, runTurn } from '../chat/agent';
import { ModelRequestError } from '../chat/model-client';
import { DONE, answer, finishChunk, rechunk, textChunk, toolCallChunk } from './helpers/sse';
import { lastAssistant, never, setup, toolMessages } from './helpers/agent';

describe('runTurn and faults', () => {
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
});
