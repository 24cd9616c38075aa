/**
 * Figure Chat's plugins: the tools, the sidebar (with its commands), and the start-up check that
 * the figure server is the one this labextension was built with.
 */
import {
  ILayoutRestorer,
  type JupyterFrontEnd,
  type JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { figureServerTransport } from './chat/model-client';
import { requestFigureServer } from './chat/figure-server';
import { notebookReadTool } from './chat/tools/notebook-read';
import { presentSvgTool } from './chat/tools/present-svg';
import { visionTools } from './chat/tools/vision';
import { registerCommands } from './commands';
import { figureOutputPlugin } from './figure-outputs';
import { insertPlugin } from './insert';
import { pinnedCellsPlugin } from './pinned-cells';
import { IFigureChatTools } from './tokens';
import { ToolRegistry } from './tools/registry';
import { CardRendererRegistry } from './widget/card-renderers';
import { presentSvgCard } from './widget/figure';
import { visionCard } from './widget/vision-card';

const PACKAGE_VERSION: string = (require('../package.json') as { version: string }).version;

/** The tool registry and card renderers, with the built-in tools. */
const toolsPlugin: JupyterFrontEndPlugin<IFigureChatTools> = {
  id: 'jupyterlab-figure-chat:tools',
  description: 'The Figure Chat tool registry with the built-in tools.',
  autoStart: true,
  provides: IFigureChatTools,
  activate: (): IFigureChatTools => {
    const registry = new ToolRegistry();
    const cards = new CardRendererRegistry();
    registry.register(notebookReadTool);
    registry.register(presentSvgTool);
    cards.register('present_svg', presentSvgCard);
    for (const tool of visionTools) {
      registry.register(tool);
      cards.register(tool.name, visionCard);
    }
    return { registry, cards };
  }
};

/** The sidebar chat and its commands. */
const sidebarPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:sidebar',
  description: 'A model chat in the right sidebar, bound to the active notebook.',
  autoStart: true,
  requires: [IFigureChatTools, INotebookTracker, IRenderMimeRegistry],
  optional: [ISettingRegistry, ITranslator, ILayoutRestorer, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    tools: IFigureChatTools,
    tracker: INotebookTracker,
    rendermime: IRenderMimeRegistry,
    settingRegistry: ISettingRegistry | null,
    translator: ITranslator | null,
    restorer: ILayoutRestorer | null,
    palette: ICommandPalette | null
  ) => {
    registerCommands({
      app,
      tools,
      tracker,
      rendermime,
      settingRegistry,
      translator: translator ?? nullTranslator,
      restorer,
      palette,
      transport: figureServerTransport()
    });
  }
};

/** Checks at start-up that the figure server answers and matches this labextension. */
const versionPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:version-check',
  description: 'Warns when the figure server is missing or from another version.',
  autoStart: true,
  optional: [ITranslator],
  activate: (_: JupyterFrontEnd, translator: ITranslator | null) => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_figure_chat');
    requestFigureServer<{ version?: string }>('version')
      .then(answer => {
        if (answer.version !== PACKAGE_VERSION) {
          Notification.warning(
            trans.__(
              'Figure Chat: the figure server is version %1 but the labextension is %2. Reinstall jupyterlab-figure-chat and restart JupyterLab.',
              String(answer.version),
              PACKAGE_VERSION
            ),
            { autoClose: false }
          );
        }
      })
      .catch((error: Error) => {
        Notification.error(
          trans.__(
            'Figure Chat: the figure server did not start (%1). Check that jupyter-server-proxy is enabled and see the Jupyter server log.',
            error.message
          ),
          { autoClose: false }
        );
      });
  }
};

export default [
  toolsPlugin,
  sidebarPlugin,
  versionPlugin,
  figureOutputPlugin,
  insertPlugin,
  pinnedCellsPlugin
];
