/**
 * Attach a picture to the message being written: from an image output (cell context menu) or an
 * image file (file browser context menu).
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import { IFileBrowserFactory } from '@jupyterlab/filebrowser';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { IFigureChatSidebar } from '../tokens';
import { CommandIDs } from './command-ids';

const IMAGE_EXTENSIONS = ['.png', '.jpg', '.jpeg', '.gif', '.webp', '.tif', '.tiff'];

export const attachPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:attach',
  description: 'Attach a picture to a Figure Chat message from a cell output or the file browser.',
  autoStart: true,
  requires: [IFigureChatSidebar, INotebookTracker],
  optional: [ITranslator, IFileBrowserFactory],
  activate: (
    app,
    sidebar: IFigureChatSidebar,
    tracker: INotebookTracker,
    translator: ITranslator | null,
    browsers: IFileBrowserFactory | null
  ) => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_figure_chat');
    const hasChat = (): boolean => sidebar.currentView !== null;
    app.commands.addCommand(CommandIDs.attachOutput, {
      label: trans.__('Attach Picture to Figure Chat'),
      describedBy: { args: { type: 'object', properties: {} } },
      isEnabled: hasChat,
      execute: () => {
        const address = outputAddressFromContextMenu(app, tracker);
        if (!address) {
          Notification.warning(trans.__('Right-click an image output to attach it.'));
          return;
        }
        sidebar.currentView?.attach(address);
        app.shell.activateById(sidebar.id);
      }
    });
    app.commands.addCommand(CommandIDs.attachFile, {
      label: trans.__('Attach Picture to Figure Chat'),
      describedBy: { args: { type: 'object', properties: {} } },
      isEnabled: hasChat,
      execute: () => {
        // The item right-clicked is selected by the file browser itself (its items carry no
        // path), so the selection says what to attach: every selected picture, in order.
        const browser = browsers?.tracker.currentWidget;
        const selected = browser ? Array.from(browser.selectedItems()) : [];
        const pictures = selected.filter(
          item =>
            item.type !== 'directory' &&
            IMAGE_EXTENSIONS.includes(PathExt.extname(item.path).toLowerCase())
        );
        if (!pictures.length) {
          Notification.warning(
            trans.__(
              'Right-click an image file (%1) to attach it.',
              selected[0]?.name || IMAGE_EXTENSIONS.join(', ')
            )
          );
          return;
        }
        for (const picture of pictures) {
          sidebar.currentView?.attach(picture.path);
        }
        app.shell.activateById(sidebar.id);
      }
    });
    app.contextMenu.addItem({
      command: CommandIDs.attachOutput,
      selector: '.jp-OutputArea-output img',
      rank: 20
    });
    app.contextMenu.addItem({
      command: CommandIDs.attachFile,
      selector: '.jp-DirListing-item[data-isdir="false"]',
      rank: 20
    });
  }
};

/** `cell:<id>/<n>` of the image output under the context-menu click. */
function outputAddressFromContextMenu(
  app: JupyterFrontEnd,
  tracker: INotebookTracker
): string | null {
  const outputNode = app.contextMenuHitTest(n => n.classList.contains('jp-OutputArea-child'));
  const cellNode = app.contextMenuHitTest(n => n.classList.contains('jp-Cell'));
  const panel = tracker.currentWidget;
  if (!outputNode || !cellNode || !panel) {
    return null;
  }
  const cell = panel.content.widgets.find(widget => widget.node === cellNode);
  const area = outputNode.parentElement;
  if (!cell || !area) {
    return null;
  }
  const index = Array.from(area.children).indexOf(outputNode);
  return index < 0 ? null : `cell:${cell.model.id}/${index}`;
}
