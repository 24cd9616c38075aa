/**
 * "Something new at the end" for the chat's jump button (issue 11.9): a new message or more of
 * the streaming answer is; a long conversation whose earlier parts render late is not. And when a
 * vision card is built again: views drawn again at another width are.
 */
import { buildChatItems } from '../chat/cards';
import { endSignature, viewsSignature } from '../widget/chat-keys';
import { assistant, call, result, user } from './helpers/transcripts';

describe('endSignature', () => {
  const history = Array.from({ length: 50 }, (_, i) => [
    user(`u${i}`, `Question ${i}`),
    assistant(`a${i}`, `Answer ${i}`)
  ]).flat();

  it('is empty for an empty conversation', () => {
    expect(endSignature(buildChatItems([]))).toBe('');
  });

  it('changes when a message arrives or the streaming answer grows', () => {
    const before = endSignature(buildChatItems(history));
    const asked = [...history, user('u50', 'More?')];
    const afterQuestion = endSignature(buildChatItems(asked));
    expect(afterQuestion).not.toBe(before);
    const live = { streamingId: 'a50' };
    const started = endSignature(buildChatItems([...asked, assistant('a50', 'It')], live));
    const grown = endSignature(buildChatItems([...asked, assistant('a50', 'It grows')], live));
    expect(started).not.toBe(afterQuestion);
    expect(grown).not.toBe(started);
  });

  it('does not change when something earlier changes', () => {
    const changed = history.map(entry =>
      entry.id === 'a3' ? assistant('a3', 'An edited earlier answer') : entry
    );
    expect(endSignature(buildChatItems(changed))).toBe(endSignature(buildChatItems(history)));
  });

  it('changes when the last tool call moves on', () => {
    const figure = call('f1', 'present_svg', { svg: '<svg/>' });
    const asked = [...history, user('u50', 'Draw'), assistant('a50', 'Here.', [figure])];
    const running = endSignature(buildChatItems(asked, { runningCallIds: new Set(['f1']) }));
    const done = endSignature(buildChatItems([...asked, result('t50', 'f1', 'SVG presented')]));
    expect(done).not.toBe(running);
  });
});

describe('viewsSignature', () => {
  const view = (width: number) => ({ png: '', width, height: width, caption: 'c' });
  const record = { version: 1, address: 'p.png', marks: [] } as never;

  it('changes when views are drawn again at another width, not when drawn the same', () => {
    const narrow = viewsSignature({ kind: 'ready', views: [view(256)], record });
    const wide = viewsSignature({ kind: 'ready', views: [view(512)], record });
    expect(wide).not.toBe(narrow);
    expect(viewsSignature({ kind: 'ready', views: [view(256)], record })).toBe(narrow);
    expect(viewsSignature({ kind: 'rendering' })).not.toBe(narrow);
  });
});
