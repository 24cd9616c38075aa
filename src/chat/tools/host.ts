/**
 * The chat session as a {@link ToolHost}: the notebook the conversation belongs to, its cell
 * pictures, the figure server, the conversation the vision records fold from, and the records the
 * notebook's Vision outputs share with the people editing them.
 */
import type { INotebookModel } from '@jupyterlab/notebook';

import type { LiveVisionWidgets, NotebookCellJson, ToolHost } from '../../tools/host';
import type { ToolContext } from '../../tools/registry';
import { isReadable } from '../../tools/transcript';
import type { Conversation } from '../conversation';
import { pictureRequest } from './pictures';
import { findSharedVision, readUnreadSetPicture } from './shared-vision';

/** The host of one chat session: a ToolHost that also exposes the notebook and conversation. */
export interface ChatToolHost extends ToolHost {
  readonly kind: 'figure-chat-session';
  /** The notebook model, or null once it is closed. */
  notebook(): INotebookModel | null;
  readonly conversation: Conversation;
}

/** What a chat session hands its tools. */
export interface ChatToolHostOptions {
  notebook(): INotebookModel | null;
  readonly conversation: Conversation;
  request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T>;
  /** This page's live Vision widgets (the kernel bridge), or null without ipywidgets. */
  readonly liveVision?: LiveVisionWidgets | null;
}

/** The cells of a notebook model as nbformat JSON. */
function cellsOf(model: INotebookModel): NotebookCellJson[] {
  const cells: NotebookCellJson[] = [];
  for (let index = 0; index < model.cells.length; index++) {
    cells.push({ ...model.cells.get(index).toJSON() });
  }
  return cells;
}

/** The chat session's host. */
export function createChatToolHost(options: ChatToolHostOptions): ChatToolHost {
  const { conversation } = options;
  const cells = (): NotebookCellJson[] | null => {
    const model = options.notebook();
    return model ? cellsOf(model) : null;
  };
  return {
    kind: 'figure-chat-session',
    notebook: () => options.notebook(),
    conversation,
    cells,
    pictureData: address => pictureRequest(options.notebook(), address).data,
    request: (route, body, signal) => options.request(route, body, signal),
    vision: {
      messages: () => conversation.entries.filter(isReadable),
      owner: conversation,
      shared: address => findSharedVision(cells(), address, options.liveVision ?? null),
      readShared: (address, signal) =>
        readUnreadSetPicture(cells(), address, options.liveVision ?? null, options.request, signal)
    }
  };
}

/** The host of a tool call. */
export function toolHost(context: ToolContext): ToolHost {
  if (!context.host) {
    throw new Error('this tool needs a host (a notebook and the figure server)');
  }
  return context.host;
}
