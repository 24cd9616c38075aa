/**
 * The sidebar chat: one chat per notebook, following the notebook selected in the main area, and
 * the command that opens it.
 */
import { ILayoutRestorer, type JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { INotebookTracker, type NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { CommandRegistry } from '@lumino/commands';

import { requestFigureServer } from '../chat/figure-server';
import { figureServerTransport } from '../chat/model-client';
import {
  ICardRendererRegistry,
  IFigureChatSettings,
  IFigureChatSidebar,
  ILiveVisionWidgets,
  IToolRegistry
} from '../tokens';
import { figureChatIcon } from '../widget/icons';
import { createLargerView } from '../widget/larger-view';
import { FigureChatSidebar } from '../widget/sidebar';
import { CommandIDs } from './command-ids';

export const sidebarPlugin: JupyterFrontEndPlugin<IFigureChatSidebar> = {
  id: 'jupyterlab-figure-chat:sidebar',
  description: 'A model chat in the right sidebar, bound to the active notebook.',
  autoStart: true,
  requires: [
    IToolRegistry,
    ICardRendererRegistry,
    IFigureChatSettings,
    INotebookTracker,
    IRenderMimeRegistry
  ],
  optional: [ITranslator, ILayoutRestorer, ICommandPalette, ILiveVisionWidgets],
  provides: IFigureChatSidebar,
  activate: (
    app,
    registry: IToolRegistry,
    cards: ICardRendererRegistry,
    settings: IFigureChatSettings,
    tracker: INotebookTracker,
    rendermime: IRenderMimeRegistry,
    translator: ITranslator | null,
    restorer: ILayoutRestorer | null,
    palette: ICommandPalette | null,
    liveVision: ILiveVisionWidgets | null
  ): IFigureChatSidebar => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_figure_chat');
    const sidebar = new FigureChatSidebar({
      services: {
        registry,
        transport: figureServerTransport(),
        settings: () => settings.current,
        request: (route, body, signal) => requestFigureServer(route, body, signal),
        liveVision
      },
      settings,
      rendermime,
      cards,
      trans,
      openLarger: (src, title, server) => {
        const widget = createLargerView(src, title, undefined, server);
        app.shell.add(widget, 'main');
        app.shell.activateById(widget.id);
      },
      openSettings: () => void app.commands.execute('settingeditor:open', { query: 'Figure Chat' }),
      modelName: () => settings.current.model,
      allowRemoteImages: () => settings.current.allowRemoteImages,
      insertCode: (code, mode) => insertCode(tracker, code, mode),
      actions: [
        {
          id: 'new',
          label: trans.__('New'),
          title: trans.__('Start a new conversation (the current one can be restored)'),
          run: () => void app.commands.execute(CommandIDs.newConversation)
        },
        {
          id: 'export',
          label: trans.__('Export'),
          title: trans.__('Export Chat as Markdown'),
          run: () => void app.commands.execute(CommandIDs.export)
        }
      ]
    });
    sidebar.title.icon = figureChatIcon;
    app.shell.add(sidebar, 'right', { rank: 600 });
    restorer?.add(sidebar, 'jupyterlab-figure-chat-sidebar');
    // The tooltip names the shortcut, whatever the user bound it to.
    const updateCaption = (): void => {
      const binding = app.commands.keyBindings.find(b => b.command === CommandIDs.open);
      const keys = binding
        ? binding.keys.map(k => CommandRegistry.formatKeystroke(k)).join(', ')
        : '';
      sidebar.title.caption = keys ? trans.__('Figure Chat (%1)', keys) : trans.__('Figure Chat');
    };
    app.commands.keyBindingChanged.connect(updateCaption);
    updateCaption();

    // Follow the notebook selected in the main area (focus may stay elsewhere, in the sidebar say);
    // other documents leave the chat on the last notebook.
    const follow = (): void => {
      const current = app.shell.currentWidget;
      const panel = current && tracker.has(current) ? (current as NotebookPanel) : null;
      if (panel) {
        void sidebar.showNotebook(panel);
      } else if (!tracker.currentWidget) {
        void sidebar.showNotebook(null);
      }
    };
    app.shell.currentChanged?.connect(follow);
    tracker.currentChanged.connect(follow);
    tracker.widgetAdded.connect(follow);
    follow();

    app.commands.addCommand(CommandIDs.open, {
      label: trans.__('Open Figure Chat'),
      describedBy: { args: { type: 'object', properties: {} } },
      execute: () => {
        app.shell.activateById(sidebar.id);
        sidebar.currentView?.focusInput();
      }
    });
    palette?.addItem({ command: CommandIDs.open, category: trans.__('Figure Chat') });
    return sidebar;
  }
};

/** Put code in a new cell below the active one, or in place of the active cell's source. */
function insertCode(tracker: INotebookTracker, code: string, mode: 'below' | 'replace'): void {
  const panel = tracker.currentWidget;
  if (!panel) {
    return;
  }
  const notebook = panel.content;
  if (mode === 'below' || !notebook.activeCell) {
    const model = notebook.model;
    if (!model) {
      return;
    }
    const index = notebook.activeCell ? notebook.activeCellIndex + 1 : model.cells.length;
    model.sharedModel.insertCell(index, { cell_type: 'code', source: code });
    notebook.activeCellIndex = index;
  } else {
    notebook.activeCell.model.sharedModel.setSource(code);
  }
}
