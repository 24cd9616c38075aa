/** Waiting on a Conversation's state instead of on time. */
import type { Conversation } from '../../chat/conversation';

/** Resolves once `predicate` holds, checked now and after every change. */
export function until(
  conversation: Conversation,
  predicate: (c: Conversation) => boolean
): Promise<void> {
  return new Promise<void>(resolve => {
    if (predicate(conversation)) {
      resolve();
      return;
    }
    const check = (): void => {
      if (predicate(conversation)) {
        conversation.changed.disconnect(check);
        resolve();
      }
    };
    conversation.changed.connect(check);
  });
}
