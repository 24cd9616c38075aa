/**
 * The context builder (SPEC section 4, compaction): the latest turn whole, older figures as
 * `[figure: alt]`, older long tool results cut, images only for the current round, the oldest
 * turns dropped first against the budget, and the visible transcript never changed.
 */
import { buildContext, IMAGE_TOKENS, estimateTokens, type ModelMessage } from '../chat/context';
import type { ToolImage } from '../tools/registry';
import type { StoredMessage, UnreadableEntry } from '../tools/transcript';
import { assistant, call, deepFreeze, figureSvg, result, user } from './helpers/transcripts';

const SYSTEM = 'You are a test.';
const longResult = `cells: ${'x'.repeat(3000)}`;
const oldSvg = figureSvg('old pipeline', 400);
const newSvg = figureSvg('new pipeline', 400);

function conversation(): Array<StoredMessage | UnreadableEntry> {
  return [
    user('u1', 'Sketch the pipeline'),
    assistant('a1', 'Here it is.', [
      call('c1', 'present_svg', { svg: oldSvg, alt: 'Old pipeline' })
    ]),
    result('t1', 'c1', 'SVG presented inline: Old pipeline'),
    assistant('a1b', 'Done.'),
    { role: 'unreadable', index: 4, raw: { role: 'robot' }, reason: 'bad role' },
    user('u2', 'Read the notebook', ['cell:abc/0']),
    assistant('a2', '', [call('c2', 'notebook_read', {})]),
    result('t2', 'c2', longResult),
    assistant('a2b', 'It has many cells.'),
    user('u3', 'Draw it again, and read again'),
    assistant('a3', '', [
      call('c3', 'present_svg', { svg: newSvg, alt: 'New pipeline' }),
      call('c4', 'notebook_read', {}),
      call('c5', 'notebook_read', {})
    ]),
    result('t3', 'c3', 'SVG presented inline: New pipeline'),
    result('t4', 'c4', longResult)
    // c5 has no result: the turn was stopped while it ran.
  ];
}

function toolArguments(messages: ModelMessage[], id: string): unknown {
  for (const message of messages) {
    if (message.role === 'assistant') {
      const found = message.tool_calls?.find(c => c.id === id);
      if (found) {
        return JSON.parse(found.function.arguments);
      }
    }
  }
  throw new Error(`no call ${id}`);
}

function toolContent(messages: ModelMessage[], id: string): string {
  const found = messages.find(m => m.role === 'tool' && m.tool_call_id === id);
  if (!found || found.role !== 'tool') {
    throw new Error(`no result for ${id}`);
  }
  return found.content;
}

const image: ToolImage = { png: 'iVBORw0KGgoAAAANSUhEUg', width: 2, height: 2, caption: 'map' };

describe('buildContext', () => {
  it('sends the system prompt, then every turn in order, each call answered', () => {
    const messages = buildContext(conversation(), { systemPrompt: SYSTEM, budgetTokens: 1e6 });
    expect(messages[0]).toEqual({ role: 'system', content: SYSTEM });
    expect(messages.map(m => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
      'tool',
      'tool',
      'tool'
    ]);
    // Every tool call is followed by exactly its result, in call order.
    const a3 = messages[10];
    expect(a3.role === 'assistant' && a3.tool_calls?.map(c => c.id)).toEqual(['c3', 'c4', 'c5']);
    expect(messages.slice(11).map(m => (m.role === 'tool' ? m.tool_call_id : ''))).toEqual([
      'c3',
      'c4',
      'c5'
    ]);
    expect(toolContent(messages, 'c5')).toMatch(/interrupted/);
    // An assistant message with only calls carries "" (llama-cpp-python answers 500 to null).
    expect(a3.content).toBe('');
    // Attachments are named to the model.
    expect(messages[5]).toEqual({
      role: 'user',
      content: 'Read the notebook\n\n[Attached pictures: cell:abc/0]'
    });
    // The unreadable entry is not sent.
    expect(JSON.stringify(messages)).not.toContain('robot');
  });

  it('turns older figures into [figure: alt] and keeps the latest turn whole', () => {
    const messages = buildContext(conversation(), { systemPrompt: SYSTEM, budgetTokens: 1e6 });
    expect(toolArguments(messages, 'c1')).toEqual({
      svg: '[figure: Old pipeline]',
      alt: 'Old pipeline'
    });
    expect(toolArguments(messages, 'c3')).toEqual({ svg: newSvg, alt: 'New pipeline' });
    expect(JSON.stringify(messages)).not.toContain('old pipeline</text>');
  });

  it('cuts long tool results of older turns only', () => {
    const messages = buildContext(conversation(), {
      systemPrompt: SYSTEM,
      budgetTokens: 1e6,
      maxOldResultChars: 100
    });
    const old = toolContent(messages, 'c2');
    expect(old).toBe(
      `${longResult.slice(0, 100)}… [cut: ${longResult.length - 100} more characters]`
    );
    expect(toolContent(messages, 'c4')).toBe(longResult);
    // The default cut is 2000 characters.
    const byDefault = toolContent(
      buildContext(conversation(), { systemPrompt: SYSTEM, budgetTokens: 1e6 }),
      'c2'
    );
    expect(byDefault.startsWith(longResult.slice(0, 2000))).toBe(true);
    expect(byDefault).toContain(`[cut: ${longResult.length - 2000} more characters]`);
  });

  it('sends images only after the latest round, as one user message of image parts', () => {
    const without = buildContext(conversation(), { systemPrompt: SYSTEM, budgetTokens: 1e6 });
    expect(JSON.stringify(without)).not.toContain('image_url');
    const withImages = buildContext(conversation(), {
      systemPrompt: SYSTEM,
      budgetTokens: 1e6,
      images: [image, { ...image, caption: 'close-up' }]
    });
    expect(withImages.slice(0, -1)).toEqual(without);
    expect(withImages[withImages.length - 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'The views rendered by the tool calls above:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${image.png}` } },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${image.png}` } }
      ]
    });
  });

  it("sends a view's model copy, with its type, instead of the PNG when there is one", () => {
    const copy = { ...image, model: { mime: 'image/jpeg' as const, data: '/9j/4AAQ' } };
    const messages = buildContext(conversation(), {
      systemPrompt: SYSTEM,
      budgetTokens: 1e6,
      images: [copy, image]
    });
    expect(messages[messages.length - 1].content).toEqual([
      { type: 'text', text: 'The views rendered by the tool calls above:' },
      { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${image.png}` } }
    ]);
  });

  it('drops the oldest turns first to fit the budget, never the latest turn', () => {
    const entries = conversation();
    const full = buildContext(entries, { systemPrompt: SYSTEM, budgetTokens: 1e6 });
    const latestOnly = buildContext(entries, { systemPrompt: SYSTEM, budgetTokens: 1 });
    expect(latestOnly[0]).toEqual({ role: 'system', content: SYSTEM });
    expect(latestOnly[1]).toEqual({ role: 'user', content: 'Draw it again, and read again' });
    expect(latestOnly).toHaveLength(6);
    // A budget that fits the latest two turns but not the first drops turn 1 only.
    const withoutFirst = buildContext(entries, {
      systemPrompt: SYSTEM,
      budgetTokens: estimateTokens(full) - 10
    });
    const users = withoutFirst.filter(m => m.role === 'user').map(m => m.content);
    expect(users).toEqual([
      'Read the notebook\n\n[Attached pictures: cell:abc/0]',
      'Draw it again, and read again'
    ]);
    expect(estimateTokens(withoutFirst)).toBeLessThanOrEqual(estimateTokens(full) - 10);
    // Images count against the budget at a fixed price, which can push older turns out.
    const budget = estimateTokens(full) + 5;
    expect(buildContext(entries, { systemPrompt: SYSTEM, budgetTokens: budget })).toEqual(full);
    const priced = buildContext(entries, {
      systemPrompt: SYSTEM,
      budgetTokens: budget,
      images: [image]
    });
    // The image's price leaves no room for the older turns; turn 1 is not kept once turn 2 is
    // dropped (no gaps in the history).
    expect(IMAGE_TOKENS).toBeGreaterThan(estimateTokens(full) - estimateTokens(latestOnly));
    expect(priced.slice(0, -1)).toEqual(latestOnly);
    expect(priced[priced.length - 1].role).toBe('user');
  });

  it('never changes the entries it is given', () => {
    const entries = deepFreeze(conversation());
    const before = JSON.stringify(entries);
    buildContext(entries, {
      systemPrompt: SYSTEM,
      budgetTokens: 1e6,
      maxOldResultChars: 10,
      images: [image]
    });
    buildContext(entries, { systemPrompt: SYSTEM, budgetTokens: 1 });
    expect(JSON.stringify(entries)).toBe(before);
  });

  it('handles an empty conversation and one that starts without a user message', () => {
    expect(buildContext([], { systemPrompt: SYSTEM, budgetTokens: 10 })).toEqual([
      { role: 'system', content: SYSTEM }
    ]);
    const orphan = buildContext([assistant('a0', 'Hello.')], {
      systemPrompt: SYSTEM,
      budgetTokens: 1e6
    });
    expect(orphan).toEqual([
      { role: 'system', content: SYSTEM },
      { role: 'assistant', content: 'Hello.' }
    ]);
  });
});
