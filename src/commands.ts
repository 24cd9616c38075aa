/**
 * The sidebar and the `figure-chat:*` commands: open, new conversation, export, stop, and attach a
 * picture from a cell output or the file browser.
 */
import type { ILayoutRestorer, JupyterFrontEnd } from '@jupyterlab/application';
import { Notification, type ICommandPalette } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { ITranslator } from '@jupyterlab/translation';

import type { AgentSettings } from './chat/agent';
import { requestFigureServer } from './chat/figure-server';
import type { ModelTransport } from './chat/model-client';
import type { IFigureChatTools } from './tokens';
import { exportMarkdown } from './tools/export';
import { FigureChatSidebar } from './widget/sidebar';
import { figureChatIcon } from './widget/icons';
import { createLargerView } from './widget/larger-view';

/** Command ids. */
export const CommandIDs = {
  open: 'figure-chat:open',
  newConversation: 'figure-chat:new-conversation',
  export: 'figure-chat:export-markdown',
  stop: 'figure-chat:stop',
  attachOutput: 'figure-chat:attach-output',
  attachFile: 'figure-chat:attach-file'
} as const;

const DEFAULT_SETTINGS: AgentSettings = {
  endpoint: 'http://localhost:11434/v1',
  model: 'qwen2.5vl:7b',
  contextBudget: 24000,
  maxToolRounds: 8,
  acceptsImages: 'auto'
};

const IMAGE_EXTENSIONS = ['.png', '.jpg', '.jpeg', '.gif', '.webp', '.tif', '.tiff'];

/** What the commands need. */
export interface CommandOptions {
  app: JupyterFrontEnd;
  tools: IFigureChatTools;
  tracker: INotebookTracker;
  rendermime: IRenderMimeRegistry;
  settingRegistry: ISettingRegistry | null;
  translator: ITranslator;
  restorer: ILayoutRestorer | null;
  palette: ICommandPalette | null;
  transport: ModelTransport;
}

/** Create the sidebar and register the commands. */
export function registerCommands(options: CommandOptions): FigureChatSidebar {
  const { app, tools, tracker, translator } = options;
  const trans = translator.load('jupyterlab_figure_chat');
  let settings: AgentSettings = DEFAULT_SETTINGS;
  if (options.settingRegistry) {
    void options.settingRegistry.load('jupyterlab-figure-chat:plugin').then(loaded => {
      const read = (): void => {
        settings = { ...DEFAULT_SETTINGS, ...(loaded.composite as Partial<AgentSettings>) };
      };
      read();
      loaded.changed.connect(read);
    });
  }

  const sidebar = new FigureChatSidebar({
    services: {
      registry: tools.registry,
      transport: options.transport,
      settings: () => settings,
      request: (route, body, signal) => requestFigureServer(route, body, signal)
    },
    rendermime: options.rendermime,
    cards: tools.cards,
    trans,
    openLarger: (src, title) => {
      const widget = createLargerView(src, title);
      app.shell.add(widget, 'main');
      app.shell.activateById(widget.id);
    },
    actions: [
      {
        id: 'new',
        label: trans.__('New'),
        title: trans.__('Start a new conversation'),
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
  options.restorer?.add(sidebar, 'jupyterlab-figure-chat-sidebar');
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

  const hasChat = (): boolean => sidebar.currentView !== null;

  app.commands.addCommand(CommandIDs.open, {
    label: trans.__('Open Figure Chat'),
    describedBy: { args: { type: 'object', properties: {} } },
    execute: () => {
      app.shell.activateById(sidebar.id);
      sidebar.currentView?.focusInput();
    }
  });
  app.commands.addCommand(CommandIDs.newConversation, {
    label: trans.__('New Figure Chat Conversation'),
    describedBy: { args: { type: 'object', properties: {} } },
    isEnabled: hasChat,
    execute: () => sidebar.currentView?.session.clear()
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
      const node = app.contextMenuHitTest(n => n.classList.contains('jp-DirListing-item'));
      const path = node?.getAttribute('data-path') ?? null;
      const name = node?.getAttribute('title')?.split('\n')[0] ?? '';
      if (!path || !IMAGE_EXTENSIONS.includes(PathExt.extname(path).toLowerCase())) {
        Notification.warning(
          trans.__(
            'Right-click an image file (%1) to attach it.',
            name || IMAGE_EXTENSIONS.join(', ')
          )
        );
        return;
      }
      sidebar.currentView?.attach(path);
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
  for (const command of [
    CommandIDs.open,
    CommandIDs.newConversation,
    CommandIDs.export,
    CommandIDs.stop
  ]) {
    options.palette?.addItem({ command, category: trans.__('Figure Chat') });
  }
  return sidebar;
}

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
