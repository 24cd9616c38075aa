/**
 * Models that refuse images (the agent loop against a scripted model, helpers/agent.ts): one
 * retry without them, with a notice, and text in their place when images are off.
 */
import { runTurn } from '../chat/agent';
import { ModelRequestError } from '../chat/model-client';
import { hasImages, type ScriptedReply } from './helpers/scripted-model';
import { answer, toolCalls } from './helpers/sse';
import {
  lastAssistant,
  never,
  readable,
  settings,
  setup,
  toolMessages,
  view
} from './helpers/agent';

describe('runTurn and images', () => {
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
