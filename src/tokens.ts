/**
 * Services other extensions can use: the tool registry (add a tool), the card renderers (render a
 * tool's completed calls), Figure Chat's settings and its sidebar. Each `register` returns an
 * `IDisposable` that takes the registration back.
 */
import { Token } from '@lumino/coreutils';
import type { ISignal } from '@lumino/signaling';

import type { FigureChatSettings } from './chat/settings';
import type { LiveVisionWidgets } from './tools/host';
import type { ToolRegistry } from './tools/registry';
import type { CardRendererRegistry } from './widget/card-renderers';
import type { FigureChatSidebar } from './widget/sidebar';

/** The tools the model may call, shared by every notebook's chat and the kernel bridge. */
export type IToolRegistry = ToolRegistry;

export const IToolRegistry = new Token<IToolRegistry>(
  'jupyterlab-figure-chat:IToolRegistry',
  'The Figure Chat tool registry: register a tool the model may call; dispose the result to remove it.'
);

/** How tool calls look in the chat. */
export type ICardRendererRegistry = CardRendererRegistry;

export const ICardRendererRegistry = new Token<ICardRendererRegistry>(
  'jupyterlab-figure-chat:ICardRendererRegistry',
  "The Figure Chat card renderers: register how a tool's calls look in the chat; dispose the result to remove it."
);

/** Both registries together (kept for extensions written against the first release). */
export interface IFigureChatTools {
  readonly registry: ToolRegistry;
  readonly cards: CardRendererRegistry;
}

export const IFigureChatTools = new Token<IFigureChatTools>(
  'jupyterlab-figure-chat:IFigureChatTools',
  'The Figure Chat tool registry and tool-card renderers: register a tool the model may call, or how its calls look in the chat.'
);

/** Figure Chat's settings, parsed and typed, kept current. */
export interface IFigureChatSettings {
  /** The settings now (the schema defaults until the setting registry has answered). */
  readonly current: FigureChatSettings;
  /** Emitted after the user changed a setting. */
  readonly changed: ISignal<IFigureChatSettings, FigureChatSettings>;
}

export const IFigureChatSettings = new Token<IFigureChatSettings>(
  'jupyterlab-figure-chat:IFigureChatSettings',
  'Figure Chat settings (endpoint, model, limits), parsed from the settings schema.'
);

/** The Figure Chat sidebar, for commands that act on the chat shown now. */
export type IFigureChatSidebar = FigureChatSidebar;

export const IFigureChatSidebar = new Token<IFigureChatSidebar>(
  'jupyterlab-figure-chat:IFigureChatSidebar',
  'The Figure Chat sidebar: the chat of the notebook shown now.'
);

/** The Vision widgets alive in this page (the kernel bridge provides them; absent without ipywidgets). */
export type ILiveVisionWidgets = LiveVisionWidgets;

export const ILiveVisionWidgets = new Token<ILiveVisionWidgets>(
  'jupyterlab-figure-chat:ILiveVisionWidgets',
  "The Vision widgets made by kernel code in this page: the chat's vision tools share their marks."
);
