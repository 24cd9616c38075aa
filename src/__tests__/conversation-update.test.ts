/**
 * A streamed delta updates the last message of the conversation: its cost must not grow with the
 * conversation's length (issue 11.9: a 1,000-message conversation walked every entry per delta).
 * Counted as id reads, never timed.
 */
import { Conversation } from '../chat/conversation';
import type { StoredMessage } from '../tools/transcript';
import { assistant, user } from './helpers/transcripts';

/** Messages whose `id` reads are counted. */
function counted(count: number, reads: { n: number }): StoredMessage[] {
  const messages: StoredMessage[] = [];
  for (let i = 0; i < count; i++) {
    const message = i % 2 ? assistant('', `answer ${i}`) : user('', `question ${i}`);
    const id = `m${i}`;
    Object.defineProperty(message, 'id', {
      enumerable: true,
      get: () => {
        reads.n += 1;
        return id;
      }
    });
    messages.push(message);
  }
  return messages;
}

describe('Conversation.update', () => {
  it('reads a constant number of ids per delta of the streaming answer', () => {
    const reads = { n: 0 };
    const conversation = new Conversation();
    conversation.replaceEntries(counted(1000, reads));
    conversation.append(assistant('streaming', '', [], 'interrupted'));
    reads.n = 0;
    let text = '';
    for (let delta = 0; delta < 100; delta++) {
      text += 'x';
      conversation.update('streaming', { content: text });
    }
    // The old findIndex read all 1,000 ids on each of the 100 deltas.
    expect(reads.n).toBe(0);
    expect(conversation.entries[1000]).toMatchObject({ id: 'streaming', content: text });
    conversation.dispose();
  });

  it('still finds and changes an earlier message', () => {
    const reads = { n: 0 };
    const conversation = new Conversation();
    conversation.replaceEntries(counted(10, reads));
    conversation.update('m3', { content: 'changed' });
    expect(conversation.entries[3]).toMatchObject({ id: 'm3', content: 'changed' });
    expect(conversation.entries[4]).toMatchObject({ content: 'question 4' });
    conversation.update('missing', { content: 'nothing' });
    expect(
      conversation.entries.map(entry => entry.role !== 'unreadable' && entry.content)
    ).not.toContain('nothing');
    conversation.dispose();
  });
});
