/** Commands on the chat shown now: start a new conversation, stop the answer, export. */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { IFigureChatSidebar } from '../tokens';
import { CommandIDs } from './command-ids';

export const conversationCommandsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:conversation-commands',
  description: 'New conversation, Stop and Export for the Figure Chat shown now.',
  autoStart: true,
  requires: [IFigureChatSidebar],
  optional: [ITranslator, ICommandPalette],
  activate: (
    app,
    sidebar: IFigureChatSidebar,
    translator: ITranslator | null,
    palette: ICommandPalette | null
  ) => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_figure_chat');
    const hasChat = (): boolean => sidebar.currentView !== null;
    app.commands.addCommand(CommandIDs.newConversation, {
      label: trans.__('New Figure Chat Conversation'),
      describedBy: { args: { type: 'object', properties: {} } },
      isEnabled: () => hasChat() && !sidebar.currentView?.session.conversation.isNewer,
      execute: () => sidebar.currentView?.startOver()
    });
    app.commands.addCommand(CommandIDs.stop, {
      label: trans.__('Stop Figure Chat Answer'),
      describedBy: { args: { type: 'object', properties: {} } },
      isEnabled: () => sidebar.currentView?.session.busy ?? false,
      execute: () => sidebar.currentView?.session.stop()
    });
    app.commands.addCommand(CommandIDs.export, {
      label: trans.__('Export Chat as Markdown'),
      describedBy: { args: { type: 'object', properties: {} } },
      isEnabled: hasChat,
      execute: async () => {
        const view = sidebar.currentView;
        const notebook = sidebar.currentNotebook;
        if (!view || !notebook) {
          return;
        }
        const { exportMarkdown } = await import('../tools/export');
        const markdown = exportMarkdown(view.session.conversation);
        const path = notebook.context.path.replace(/\.ipynb$/, '') + '.chat.md';
        await app.serviceManager.contents.save(path, {
          type: 'file',
          format: 'text',
          content: markdown
        });
        Notification.success(trans.__('Conversation exported to %1', path), { autoClose: 4000 });
        await app.commands.execute('docmanager:open', { path });
      }
    });
    for (const command of [CommandIDs.newConversation, CommandIDs.export, CommandIDs.stop]) {
      palette?.addItem({ command, category: trans.__('Figure Chat') });
    }
  }
};
