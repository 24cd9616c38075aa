/**
 * The tool registry and the card renderers as services (so a third party can add a tool and how
 * its calls look), and the plugin that registers Figure Chat's own tools in them.
 */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { notebookReadTool } from '../chat/tools/notebook-read';
import { presentSvgTool } from '../chat/tools/present-svg';
import { visionTools } from '../chat/tools/vision';
import { ICardRendererRegistry, IFigureChatTools, IToolRegistry } from '../tokens';
import { ToolRegistry } from '../tools/registry';
import { CardRendererRegistry } from '../widget/card-renderers';
import { presentSvgCard } from '../widget/figure';
import { visionCard } from '../widget/vision-card';

/** The tool registry, empty. */
export const toolRegistryPlugin: JupyterFrontEndPlugin<IToolRegistry> = {
  id: 'jupyterlab-figure-chat:tool-registry',
  description: 'The registry of tools the Figure Chat model may call.',
  autoStart: true,
  provides: IToolRegistry,
  activate: (): IToolRegistry => new ToolRegistry()
};

/** The card renderers, empty. */
export const cardRenderersPlugin: JupyterFrontEndPlugin<ICardRendererRegistry> = {
  id: 'jupyterlab-figure-chat:card-renderers',
  description: "How a tool's calls look in the Figure Chat.",
  autoStart: true,
  provides: ICardRendererRegistry,
  activate: (): ICardRendererRegistry => new CardRendererRegistry()
};

/** Figure Chat's own tools and their cards; also provides both registries as one service. */
export const builtinToolsPlugin: JupyterFrontEndPlugin<IFigureChatTools> = {
  id: 'jupyterlab-figure-chat:tools',
  description: 'The built-in Figure Chat tools: notebook_read, present_svg and the vision tools.',
  autoStart: true,
  requires: [IToolRegistry, ICardRendererRegistry],
  provides: IFigureChatTools,
  activate: (_, registry: IToolRegistry, cards: ICardRendererRegistry): IFigureChatTools => {
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
