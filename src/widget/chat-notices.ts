/**
 * The notices above a chat: a conversation that cannot be read or was saved by a newer Figure
 * Chat, messages sharing an id, and the conversation's own notice.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import { countDuplicateIds } from '../chat/cards';
import type { Conversation } from '../chat/conversation';

/** What the chat says above its messages, in order (none: no notice). */
export function chatNotices(conversation: Conversation, trans: TranslationBundle): string[] {
  const problem = conversation.problem;
  const duplicates = countDuplicateIds(conversation.entries);
  const notices: string[] = [];
  if (problem) {
    notices.push(
      conversation.isNewer
        ? trans.__(
            'This conversation was saved by a newer Figure Chat (%1). Update Figure Chat to read and continue it; it is kept as it is.',
            problem
          )
        : trans.__(
            'This notebook holds a Figure Chat conversation that cannot be read (%1). Start a new conversation to replace it.',
            problem
          )
    );
  }
  if (duplicates) {
    notices.push(
      trans.__(
        '%1 messages of this conversation share an id with an earlier one (was it pasted twice?). Every entry is shown and tool results are paired by position; the stored conversation is left as it is.',
        duplicates
      )
    );
  }
  if (conversation.notice) {
    notices.push(conversation.notice);
  }
  return notices;
}
