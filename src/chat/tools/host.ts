/**
 * What the chat's tools may use: the notebook the conversation belongs to, and the figure server.
 * Passed to handlers as `context.host`.
 */
import type { INotebookModel } from '@jupyterlab/notebook';

import type { ToolContext } from '../../tools/registry';
import type { Conversation } from '../conversation';

/** The host of one chat session. */
export interface ChatToolHost {
  readonly kind: 'figure-chat-session';
  /** The notebook model, or null once it is closed. */
  notebook(): INotebookModel | null;
  readonly conversation: Conversation;
  /** POST to a figure-server route. */
  request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T>;
}

/** The chat host of a tool call; throws when a tool runs outside a chat session. */
export function chatHost(context: ToolContext): ChatToolHost {
  const host = context.host as Partial<ChatToolHost> | null;
  if (!host || host.kind !== 'figure-chat-session') {
    throw new Error('this tool runs only inside a Figure Chat session');
  }
  return host as ChatToolHost;
}
