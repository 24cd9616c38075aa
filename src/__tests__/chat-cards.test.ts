/**
 * Rehydration (SPEC section 4): tool cards rebuilt from stored calls and results, in call order,
 * for completed, failed and interrupted calls in one mixed batch; pending and running calls while
 * a turn is live; unreadable entries and orphan results shown, not dropped.
 */
import { buildChatItems, type ChatItem } from '../chat/cards';
import type { StoredMessage, UnreadableEntry } from '../tools/transcript';
import { assistant, call, deepFreeze, figureSvg, result, user } from './helpers/transcripts';

function summary(items: ChatItem[]): string[] {
  return items.map(item => {
    switch (item.kind) {
      case 'user':
      case 'assistant':
        return `${item.kind}:${item.message.id}`;
      case 'tool':
        return `tool:${item.call.id}:${item.state}`;
      case 'unreadable':
        return `unreadable:${item.entry.index}`;
      case 'orphan-result':
        return `orphan:${item.message.tool_call_id}`;
    }
  });
}

const mixedBatch = (): Array<StoredMessage | UnreadableEntry> => [
  user('u1', 'Draw and mark'),
  assistant('a1', 'Working on it.', [
    call('c1', 'present_svg', { svg: figureSvg('ok'), alt: 'OK' }),
    call('c2', 'present_svg', { svg: '<svg/>', alt: '' }),
    call('c3', 'vision_mark', { marks: [{ at: '1,2' }] }),
    call('c4', 'notebook_read', {}),
    call('c5', 'vision_list', {})
  ]),
  // Results are stored as they finished, not necessarily in call order.
  result('t2', 'c2', 'Tool error: alt: Too small', 'failed'),
  result('t1', 'c1', 'SVG presented inline: OK'),
  result('t3', 'c3', 'Tool call was interrupted (stopped by the user).', 'interrupted'),
  { role: 'unreadable', index: 5, raw: 'garbage', reason: 'expected object' },
  result('t9', 'c9', 'a result for a call nobody made'),
  assistant('a2', 'Stopped.', [], 'interrupted')
  // c4 and c5 never got a result (the page was reloaded after an autosave).
];

describe('buildChatItems', () => {
  it('replays a mixed batch in call order, each call with its own state and result', () => {
    const entries = deepFreeze(mixedBatch());
    const items = buildChatItems(entries);
    expect(summary(items)).toEqual([
      'user:u1',
      'assistant:a1',
      'tool:c1:completed',
      'tool:c2:failed',
      'tool:c3:interrupted',
      'tool:c4:interrupted',
      'tool:c5:interrupted',
      'unreadable:5',
      'orphan:c9',
      'assistant:a2'
    ]);
    const cards = items.filter(
      (item): item is Extract<ChatItem, { kind: 'tool' }> => item.kind === 'tool'
    );
    expect(cards.map(card => card.result?.id)).toEqual(['t1', 't2', 't3', undefined, undefined]);
    expect(cards.every(card => card.messageId === 'a1')).toBe(true);
    expect(cards[0].call).toBe(entries[1].role === 'assistant' ? entries[1].tool_calls?.[0] : null);
    expect(items.some(item => item.kind === 'assistant' && item.live)).toBe(false);
  });

  it('shows calls of the live turn as running or pending, older missing results as interrupted', () => {
    const entries = [
      user('u1', 'First'),
      assistant('a1', '', [call('old', 'notebook_read')]),
      user('u2', 'Second'),
      assistant('a2', '', [
        call('r', 'notebook_read'),
        call('p', 'vision_mark'),
        call('d', 'vision_list')
      ]),
      result('t1', 'd', 'no marks')
    ];
    const live = buildChatItems(entries, { runningCallIds: new Set(['r']) });
    expect(summary(live)).toEqual([
      'user:u1',
      'assistant:a1',
      'tool:old:interrupted',
      'user:u2',
      'assistant:a2',
      'tool:r:running',
      'tool:p:pending',
      'tool:d:completed'
    ]);
    // The same entries once the turn is over (or after a reload): nothing is left running.
    expect(summary(buildChatItems(entries)).slice(5)).toEqual([
      'tool:r:interrupted',
      'tool:p:interrupted',
      'tool:d:completed'
    ]);
  });

  it('marks the message being streamed as live', () => {
    const entries = [user('u1', 'Hi'), assistant('a1', 'Hel', [], 'interrupted')];
    const items = buildChatItems(entries, { streamingId: 'a1' });
    expect(items[1]).toEqual({ kind: 'assistant', message: entries[1], live: true });
    expect(buildChatItems(entries)[1]).toEqual({
      kind: 'assistant',
      message: entries[1],
      live: false
    });
  });

  it('gives the live path and replay the same items once a turn has ended', () => {
    const entries = mixedBatch();
    expect(buildChatItems(entries, {})).toEqual(
      buildChatItems(JSON.parse(JSON.stringify(entries)))
    );
  });
});
