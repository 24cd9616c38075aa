/**
 * Tool cards: how a call and its result look in the chat. A tool may register a renderer for its
 * completed calls (figures, views); everything else gets the ordinary collapsible card.
 */
import type { INotebookModel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import { DisposableDelegate, type IDisposable } from '@lumino/disposable';

import type { ToolCard } from '../chat/cards';
import type { Conversation } from '../chat/conversation';
import type { VisionViews } from '../chat/vision-views';
import type { FigureServer } from './figure-raster';
import { renderWritingCard } from './writing-card';

/** What a card renderer gets. */
export interface CardRenderContext {
  readonly trans: TranslationBundle;
  readonly conversation: Conversation;
  /** The notebook of the conversation, or null once it is closed. */
  notebook(): INotebookModel | null;
  /** The views of the conversation's vision calls (read only). */
  readonly views: VisionViews;
  /** POST to a figure-server route. */
  request<T>(route: string, body: unknown, signal?: AbortSignal): Promise<T>;
  /**
   * Open an image larger in a main-area tab; `server` draws a costly figure there at each zoom.
   */
  openLarger(src: string, title: string, server?: FigureServer): void;
  /** Insert a call's figure or view into the notebook, when the insert plugin is active. */
  insert?: InsertAction;
}

/** Insert the figure of a call, or one of its views (by index), into the notebook. */
export type InsertAction = (call: string, view?: number) => void;

/** The "Insert into notebook" button under a figure or view. */
export function insertButton(
  context: CardRenderContext,
  call: string,
  view?: number
): HTMLButtonElement | null {
  const insert = context.insert;
  if (!insert) {
    return null;
  }
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'jp-FigureChat-insert jp-mod-styled';
  button.textContent = context.trans.__('Insert into notebook');
  button.title = context.trans.__(
    'Insert this below the active cell, as a Markdown cell that survives Run All and Clear All Outputs'
  );
  button.addEventListener('click', () => insert(call, view));
  return button;
}

/**
 * Renders a tool's card. Returns null to fall back to the ordinary card (for example when a stored
 * figure fails its re-check, the renderer returns an ordinary failed card itself).
 */
export type CardRenderer = (card: ToolCard, context: CardRenderContext) => HTMLElement | null;

/** The card state in the user's language. */
function stateLabel(state: ToolCard['state'], trans: TranslationBundle): string {
  switch (state) {
    case 'writing':
      return trans.__('writing');
    case 'pending':
      return trans.__('pending');
    case 'running':
      return trans.__('running');
    case 'completed':
      return trans.__('completed');
    case 'failed':
      return trans.__('failed');
    case 'interrupted':
      return trans.__('interrupted');
  }
}

function pretty(args: Record<string, unknown>): string {
  return JSON.stringify(args, null, 2);
}

/** The ordinary collapsible card: state, name, arguments and result text. */
export function renderToolCard(
  card: ToolCard,
  context: CardRenderContext,
  override?: { state: ToolCard['state']; result: string }
): HTMLElement {
  const { trans } = context;
  const state = override?.state ?? card.state;
  const details = document.createElement('details');
  details.className = `jp-FigureChat-toolCard jp-FigureChat-toolCard-mod-${state}`;
  details.dataset.tool = card.call.name;
  details.dataset.state = state;
  details.dataset.callId = card.call.id;
  const summary = document.createElement('summary');
  const label = document.createElement('span');
  label.className = 'jp-FigureChat-toolCard-state';
  label.textContent = stateLabel(state, trans);
  const name = document.createElement('code');
  name.className = 'jp-FigureChat-toolCard-name';
  name.textContent = card.call.name;
  summary.append(label, ' ', name);
  details.append(summary);
  const args = document.createElement('pre');
  args.className = 'jp-FigureChat-toolCard-arguments';
  args.textContent = pretty(card.call.arguments);
  details.append(args);
  const resultText = override?.result ?? card.result?.content;
  if (resultText !== undefined) {
    const result = document.createElement('pre');
    result.className = 'jp-FigureChat-toolCard-result';
    result.textContent = resultText;
    details.append(result);
  }
  return details;
}

/** Renderers by tool name. */
export class CardRendererRegistry {
  private readonly _renderers = new Map<string, CardRenderer>();
  private _insert: InsertAction | undefined;

  /** Offer "Insert into notebook" on figures and views (set by the insert plugin). */
  setInsert(insert: InsertAction): void {
    this._insert = insert;
  }

  /**
   * Add a renderer for a tool; refuses a second one for the same tool. Disposing the result
   * removes the renderer (the tool's calls fall back to the ordinary card).
   */
  register(toolName: string, renderer: CardRenderer): IDisposable {
    if (this._renderers.has(toolName)) {
      throw new Error(`A card renderer for "${toolName}" is already registered`);
    }
    this._renderers.set(toolName, renderer);
    return new DisposableDelegate(() => {
      if (this._renderers.get(toolName) === renderer) {
        this._renderers.delete(toolName);
      }
    });
  }

  /**
   * Render a card with its tool's renderer, or the ordinary card. A call still being written has
   * no arguments yet, so it always gets the writing card, whatever renders its tool.
   */
  render(card: ToolCard, context: CardRenderContext): HTMLElement {
    if (card.state === 'writing') {
      return renderWritingCard(card, context.trans);
    }
    const full = this._insert && !context.insert ? { ...context, insert: this._insert } : context;
    return this._renderers.get(card.call.name)?.(card, full) ?? renderToolCard(card, full);
  }
}
