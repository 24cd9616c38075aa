/**
 * From stored messages to what the chat shows: turns of user text, assistant text, tool cards and
 * unreadable entries. The live path and replay both render through `buildChatItems`, so a
 * conversation looks the same while it streams and after the notebook is reopened.
 */
import type {
  AssistantMessage,
  StoredMessage,
  StoredToolCall,
  ToolMessage,
  UnreadableEntry,
  UserMessage
} from '../tools/transcript';
import type { WritingToolCall } from './stream';

/**
 * The lifecycle of a tool card. `writing`: the model is still writing the call (its arguments are
 * not complete); the card has the name and size only.
 */
export type ToolCardState =
  'writing' | 'pending' | 'running' | 'completed' | 'failed' | 'interrupted';

/** One tool call with its result, as shown. */
export interface ToolCard {
  readonly kind: 'tool';
  readonly call: StoredToolCall;
  readonly state: ToolCardState;
  /** The result text (what the model saw), when there is a result. */
  readonly result?: ToolMessage;
  /** The assistant message the call belongs to. */
  readonly messageId: string;
  /** How much of the call has been written (UTF-8 bytes), while it is `writing`. */
  readonly bytes?: number;
}

/** Something the chat shows, in order. */
export type ChatItem =
  | { readonly kind: 'user'; readonly message: UserMessage }
  | { readonly kind: 'assistant'; readonly message: AssistantMessage; readonly live: boolean }
  | ToolCard
  | { readonly kind: 'unreadable'; readonly entry: UnreadableEntry }
  | { readonly kind: 'orphan-result'; readonly message: ToolMessage };

/** What is still running in the live turn, if any. */
export interface LiveState {
  /** The assistant message being streamed. */
  readonly streamingId?: string;
  /** Tool calls whose handlers are running now. */
  readonly runningCallIds?: ReadonlySet<string>;
  /** Tool calls the streaming message is still writing (shown as `writing` cards after it). */
  readonly writing?: ReadonlyArray<WritingToolCall>;
}

/**
 * Build the items of a conversation. A call without a result is `running` while its handler runs,
 * `pending` while the live turn has not reached it, and `interrupted` otherwise.
 */
export function buildChatItems(
  entries: ReadonlyArray<StoredMessage | UnreadableEntry>,
  live: LiveState = {}
): ChatItem[] {
  // Results by call id, in order: when ids collide (a conversation pasted twice), each call takes
  // the first unused result after it, so results pair by position instead of the last one winning.
  const results = new Map<string, Array<{ position: number; message: ToolMessage }>>();
  entries.forEach((entry, position) => {
    if (entry.role === 'tool') {
      const list = results.get(entry.tool_call_id) ?? [];
      list.push({ position, message: entry });
      results.set(entry.tool_call_id, list);
    }
  });
  const used = new Set<number>();
  const takeResult = (callId: string, after: number): ToolMessage | undefined => {
    const found = results
      .get(callId)
      ?.find(candidate => candidate.position > after && !used.has(candidate.position));
    if (found) {
      used.add(found.position);
    }
    return found?.message;
  };
  const items: ChatItem[] = [];
  const liveTurn = live.streamingId !== undefined || (live.runningCallIds?.size ?? 0) > 0;
  let lastUser = -1;
  entries.forEach((entry, position) => {
    if (entry.role === 'user') {
      lastUser = position;
    }
  });
  const pending: Array<{ index: number; position: number }> = [];
  entries.forEach((entry, position) => {
    switch (entry.role) {
      case 'user':
        items.push({ kind: 'user', message: entry });
        break;
      case 'assistant': {
        const isLast = position > lastUser;
        items.push({ kind: 'assistant', message: entry, live: entry.id === live.streamingId });
        for (const call of entry.tool_calls ?? []) {
          const result = takeResult(call.id, position);
          let state: ToolCardState;
          if (result) {
            state = result.status;
          } else if (live.runningCallIds?.has(call.id)) {
            state = 'running';
          } else if (liveTurn && isLast) {
            state = 'pending';
          } else {
            state = 'interrupted';
          }
          items.push({ kind: 'tool', call, state, result, messageId: entry.id });
        }
        if (entry.id === live.streamingId) {
          // Same id as the finished call will have: its card replaces this one in place.
          const written = new Set((entry.tool_calls ?? []).map(call => call.id));
          for (const call of live.writing ?? []) {
            if (!written.has(call.id)) {
              items.push({
                kind: 'tool',
                call: { id: call.id, name: call.name, arguments: {} },
                state: 'writing',
                messageId: entry.id,
                bytes: call.bytes
              });
            }
          }
        }
        break;
      }
      case 'tool':
        pending.push({ index: items.length, position });
        break;
      case 'unreadable':
        items.push({ kind: 'unreadable', entry });
        break;
    }
  });
  // Results no call took are shown where they stand (walked backwards so indexes stay valid).
  for (const { index, position } of pending.reverse()) {
    if (!used.has(position)) {
      const entry = entries[position] as ToolMessage;
      items.splice(index, 0, { kind: 'orphan-result', message: entry });
    }
  }
  return items;
}

/** How many message ids occur more than once (each repeat counts once). */
export function countDuplicateIds(entries: ReadonlyArray<StoredMessage | UnreadableEntry>): number {
  const seen = new Set<string>();
  let duplicates = 0;
  for (const entry of entries) {
    if (entry.role === 'unreadable') {
      continue;
    }
    if (seen.has(entry.id)) {
      duplicates += 1;
    }
    seen.add(entry.id);
  }
  return duplicates;
}
