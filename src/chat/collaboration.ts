/**
 * Merging a conversation that several clients write at once (real-time collaboration).
 *
 * With jupyter-collaboration, the notebook's metadata is shared, but `figure_chat` is one value:
 * two clients that both write it while answering would each overwrite the other's messages (the
 * last write wins). So each client writes only its own entries into the value it last saw: it
 * keeps the other clients' entries as they stored them, puts its own (the ids it created, which are
 * unique per client, see `newMessageId`) in their place or at the end, and never writes an entry of
 * another client from its own copy. A client whose write lost a race sees the winner's value,
 * finds its own entries missing, and writes them again.
 */
import type { StoredMessage, UnreadableEntry } from '../tools/transcript';

export type Entry = StoredMessage | UnreadableEntry;

function entryId(entry: Entry): string | undefined {
  return entry.role === 'unreadable' ? undefined : entry.id;
}

/**
 * The entries to show and store: `remote` (the shared value) with this client's own entries taken
 * from `local` (its current copy), and own entries the shared value lacks appended in local order.
 * Entries of other clients come only from `remote`, so a client never resurrects or rewrites them.
 */
export function mergeOwnEntries(
  remote: ReadonlyArray<Entry>,
  local: ReadonlyArray<Entry>,
  own: ReadonlySet<string>
): Entry[] {
  const localById = new Map<string, Entry>();
  for (const entry of local) {
    const id = entryId(entry);
    if (id !== undefined) {
      localById.set(id, entry);
    }
  }
  const merged: Entry[] = [];
  const seen = new Set<string>();
  for (const entry of remote) {
    const id = entryId(entry);
    if (id === undefined || !own.has(id)) {
      merged.push(entry);
    } else if (localById.has(id)) {
      merged.push(localById.get(id) as Entry); // own entry: the local copy is the newest
    } // an own entry removed locally (a retried reply) stays removed
    if (id !== undefined) {
      seen.add(id);
    }
  }
  for (const entry of local) {
    const id = entryId(entry);
    if (id !== undefined && own.has(id) && !seen.has(id)) {
      merged.push(entry);
    }
  }
  return merged;
}

/** Whether `remote` lacks or has an older copy of one of this client's own entries. */
export function missesOwnEntries(
  remote: ReadonlyArray<Entry>,
  local: ReadonlyArray<Entry>,
  own: ReadonlySet<string>
): boolean {
  const remoteById = new Map<string, string>();
  for (const entry of remote) {
    const id = entryId(entry);
    if (id !== undefined) {
      remoteById.set(id, JSON.stringify(entry));
    }
  }
  return local.some(entry => {
    const id = entryId(entry);
    return id !== undefined && own.has(id) && remoteById.get(id) !== JSON.stringify(entry);
  });
}
