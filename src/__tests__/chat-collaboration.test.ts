/**
 * Two clients writing one conversation at once (real-time collaboration): each writes only its
 * own entries into the shared value it last saw, so whichever write lands last, no message is lost
 * or duplicated, and a client whose write lost the race rewrites its own entries.
 */
import { mergeOwnEntries, missesOwnEntries, type Entry } from '../chat/collaboration';

function user(id: string, content: string): Entry {
  return { id, role: 'user', content };
}
function assistant(id: string, content: string): Entry {
  return { id, role: 'assistant', content, status: 'completed' } as Entry;
}
const ids = (entries: Entry[]): string[] =>
  entries.map(entry => (entry.role === 'unreadable' ? '?' : entry.id));

describe('mergeOwnEntries', () => {
  const base = [user('u0', 'hello'), assistant('a0', 'hi')];

  it('keeps both clients’ questions and answers when both ask at once, whoever writes last', () => {
    const ownA = new Set(['uA', 'aA']);
    const ownB = new Set(['uB', 'aB']);
    const localA = [...base, user('uA', 'from A'), assistant('aA', 'answer A')];
    const localB = [...base, user('uB', 'from B'), assistant('aB', 'answer B')];
    // A writes first (the shared value was `base`); B's write then merges onto A's value.
    const sharedAfterA = mergeOwnEntries(base, localA, ownA);
    const sharedAfterB = mergeOwnEntries(sharedAfterA, localB, ownB);
    expect(ids(sharedAfterB)).toEqual(['u0', 'a0', 'uA', 'aA', 'uB', 'aB']);
    // A sees B's value: nothing of its own is missing, so it does not write again.
    expect(missesOwnEntries(sharedAfterB, mergeOwnEntries(sharedAfterB, localA, ownA), ownA)).toBe(
      false
    );
  });

  it('a client whose write was overwritten finds its entries missing and puts them back', () => {
    const ownA = new Set(['uA']);
    const localA = [...base, user('uA', 'from A')];
    const ownB = new Set(['uB']);
    // Both wrote from `base` at the same moment; B's value won.
    const winner = mergeOwnEntries(base, [...base, user('uB', 'from B')], ownB);
    expect(missesOwnEntries(winner, localA, ownA)).toBe(true);
    const rewritten = mergeOwnEntries(winner, localA, ownA);
    expect(ids(rewritten)).toEqual(['u0', 'a0', 'uB', 'uA']);
    expect(new Set(ids(rewritten)).size).toBe(rewritten.length);
  });

  it('takes a streaming answer from the client writing it, never from a stale copy elsewhere', () => {
    const ownA = new Set(['aA']);
    const shared = [...base, assistant('aA', 'partial')];
    const staleCopyAtB = [...base, assistant('aA', 'par')];
    const ownB = new Set<string>();
    expect(mergeOwnEntries(shared, staleCopyAtB, ownB)).toEqual(shared);
    const newer = mergeOwnEntries(shared, [...base, assistant('aA', 'partial and more')], ownA);
    expect(newer[2]).toEqual(assistant('aA', 'partial and more'));
  });

  it('never resurrects another client’s entries that the shared value dropped', () => {
    const local = [...base, user('uB', 'from B')];
    expect(ids(mergeOwnEntries([], local, new Set(['uA'])))).toEqual([]);
  });
});
