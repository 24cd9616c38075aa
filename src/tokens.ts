/**
 * Services other extensions can use: the tool registry (add a tool) and the card renderers
 * (render a tool's completed calls).
 */
import { Token } from '@lumino/coreutils';

import type { ToolRegistry } from './tools/registry';
import type { CardRendererRegistry } from './widget/card-renderers';

/** The Figure Chat tools, shared by every notebook's chat and the kernel bridge. */
export interface IFigureChatTools {
  readonly registry: ToolRegistry;
  readonly cards: CardRendererRegistry;
}

export const IFigureChatTools = new Token<IFigureChatTools>(
  'jupyterlab-figure-chat:IFigureChatTools',
  'The Figure Chat tool registry and tool-card renderers: register a tool the model may call, or how its calls look in the chat.'
);
