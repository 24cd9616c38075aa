/** Commands on the chat shown now: start a new conversation, stop the answer, export. */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Dialog, ICommandPalette, Notification, showDialog } from '@jupyterlab/apputils';
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
        const { exportChat } = await import('../widget/export-chat');
        const confirmReplace = async (path: string): Promise<boolean> => {
          const answer = await showDialog({
            title: trans.__('Replace the exported chat?'),
            body: trans.__('%1 exists already. Replace it and its pictures?', path),
            buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: trans.__('Replace') })]
          });
          return answer.button.accept;
        };
        const id = Notification.emit(trans.__('Exporting the conversation…'), 'in-progress', {
          autoClose: false
        });
        try {
          const written = await exportChat(
            notebook,
            view.session.conversation.entries,
            app.serviceManager.contents,
            confirmReplace
          );
          if (!written) {
            Notification.dismiss(id);
            return;
          }
          const message = written.pictures
            ? trans.__(
                'Conversation exported to %1, pictures in %2/',
                written.markdown,
                written.folder
              )
            : trans.__('Conversation exported to %1', written.markdown);
          Notification.update({
            id,
            message: written.failures.length
              ? `${message} ${trans.__('Not drawn: %1', written.failures.join('; '))}`
              : message,
            type: written.failures.length ? 'warning' : 'success',
            autoClose: written.failures.length ? false : 4000
          });
          // The preview, so the pictures show at once.
          await app.commands.execute('docmanager:open', {
            path: written.markdown,
            factory: 'Markdown Preview'
          });
        } catch (error) {
          Notification.update({
            id,
            message: trans.__(
              'Export failed: %1',
              error instanceof Error ? error.message : String(error)
            ),
            type: 'error',
            autoClose: false
          });
        }
      }
    });
    for (const command of [CommandIDs.newConversation, CommandIDs.export, CommandIDs.stop]) {
      palette?.addItem({ command, category: trans.__('Figure Chat') });
    }
  }
};
