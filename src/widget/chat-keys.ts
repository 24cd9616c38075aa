/**
 * Which element of the chat view shows which chat item, and when it must be built again: a key per
 * item (stable across renders) and a signature of what the element shows.
 */
import type { ChatItem } from '../chat/cards';
import type { ViewsState } from '../chat/vision-views';

/** The key of an item; colliding ids get a `#n` suffix from the caller. */
export function baseKey(item: ChatItem): string {
  switch (item.kind) {
    case 'user':
    case 'assistant':
      return `${item.kind}:${item.message.id}`;
    case 'tool':
      return `tool:${item.messageId}:${item.call.id}`;
    case 'unreadable':
      return `unreadable:${item.entry.index}`;
    case 'orphan-result':
      return `orphan:${item.message.id}`;
  }
}

/**
 * What a vision card's views are, for {@link signatureOf}: their state, and for drawn views the
 * width each was drawn at, so views drawn again for a wider chat replace the narrower ones shown.
 */
export function viewsSignature(state: ViewsState): string {
  return state.kind === 'ready'
    ? `ready@${state.views.map(view => view.width).join(',')}`
    : state.kind;
}

/**
 * What an item's element shows: a different signature rebuilds the element. An assistant message
 * is updated in place instead (its Markdown renders incrementally). `views` is the state of a tool
 * call's vision views.
 */
export function signatureOf(item: ChatItem, views: string): string {
  switch (item.kind) {
    case 'user':
      return item.message.content;
    case 'assistant':
      return 'assistant';
    case 'tool':
      return `${item.state}|${item.result?.content ?? ''}|${views}|${item.bytes ?? ''}`;
    case 'unreadable':
      return item.entry.reason;
    case 'orphan-result':
      return item.message.content;
  }
}

/**
 * What "something new at the end" means for the jump button: the last item's key, and for a
 * streaming answer how much of it there is. Earlier items rendering late do not change it.
 */
export function endSignature(items: ReadonlyArray<ChatItem>): string {
  const last = items[items.length - 1];
  if (!last) {
    return '';
  }
  const size =
    last.kind === 'assistant'
      ? `${last.message.content.length}|${last.message.reasoning?.length ?? 0}`
      : last.kind === 'tool'
        ? `${last.state}|${last.bytes ?? ''}`
        : '';
  return `${items.length}|${baseKey(last)}|${size}`;
}
