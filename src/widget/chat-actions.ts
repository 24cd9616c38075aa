/**
 * What a person can ask of the chat besides a question: start over, copy a
 * message's text, and retry a failed exchange. ./chat-view wires them to its header, messages and
 * commands.
 */
import { Notification } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';

import type { ChatSession } from '../chat/session';
import type { AssistantMessage } from '../tools/transcript';

/**
 * Start a new conversation. Returns the stored conversation it replaced (for an undo), or
 * undefined when nothing was replaced: a conversation written by a newer Figure Chat never is.
 */
export function startOver(session: ChatSession, trans: TranslationBundle): unknown {
  if (session.conversation.isNewer) {
    Notification.warning(
      trans.__(
        'This conversation was saved by a newer Figure Chat. Update Figure Chat to continue it; this version will not replace it.'
      ),
      { autoClose: 8000 }
    );
    return undefined;
  }
  return session.clear();
}

/** Put a message's text on the clipboard, and say whether it worked. */
export async function copyText(text: string, trans: TranslationBundle): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    Notification.success(trans.__('Copied'), { autoClose: 1500 });
  } catch (error) {
    Notification.error(trans.__('Could not copy: %1', (error as Error).message ?? String(error)));
  }
}

/** Ask the failed question again, in place of the failed exchange. */
export function retryQuestion(session: ChatSession, message: AssistantMessage): void {
  const entries = session.conversation.entries;
  let question = entries.indexOf(message);
  while (question >= 0 && entries[question].role !== 'user') {
    question -= 1;
  }
  const user = entries[question];
  if (session.busy || !user || user.role !== 'user') {
    return;
  }
  session.retry(user, message);
}
