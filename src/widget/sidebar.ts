/**
 * The Figure Chat sidebar: follows the active notebook and shows its chat. Each notebook has its
 * own session (and so its own conversation); switching notebooks switches chats.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ISignal } from '@lumino/signaling';
import { Panel, SplitPanel, Widget } from '@lumino/widgets';

import type { FigureChatSettings } from '../chat/settings';

import { ChatSession, type SessionServices } from '../chat/session';
import { ChatView, type ChatViewOptions } from './chat-view';

/** How the sidebar builds views. */
export interface SidebarOptions extends Omit<ChatViewOptions, 'session'> {
  readonly services: SessionServices;
  readonly trans: TranslationBundle;
  /** The settings, shown in the header (model and endpoint). */
  readonly settings: {
    readonly current: FigureChatSettings;
    readonly changed: ISignal<unknown, FigureChatSettings>;
  };
  /** Header buttons: label, title, action. */
  readonly actions: ReadonlyArray<{ label: string; title: string; id: string; run(): void }>;
}

/** How long a widening resize must settle before views drawn narrower are drawn again. */
const WIDEN_DELAY_MS = 300;

/** Remembers (per browser) that the sidebar was opened at a width suited to figures once. */
const FIRST_OPEN_KEY = 'jupyterlab-figure-chat:first-open-width';

/**
 * The width the sidebar first opens at, in CSS pixels: figures fit the chat's width, and at
 * JupyterLab's default 250 px a 640-px chart shows at 34 % with its labels unreadable. 40 % of the
 * window (512 px at 1280) shows it at 0.75× (11-px labels at 8 px); never less than 460 px where
 * the window allows, never more than half the window or 640 px.
 */
export function firstOpenWidth(windowWidth: number): number {
  return Math.round(Math.min(Math.max(windowWidth * 0.4, 460), windowWidth * 0.5, 640));
}

/** The sidebar panel. */
export class FigureChatSidebar extends Panel {
  private readonly _views = new Map<NotebookPanel, ChatView>();
  private readonly _placeholder: Widget;
  private readonly _title: HTMLElement;
  private readonly _model: HTMLElement;
  private _current: NotebookPanel | null = null;
  /** The panel's width in CSS pixels as its last resize said, or -1 until measured. */
  private _width = -1;
  private _widened: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly _options: SidebarOptions) {
    super();
    const { trans } = _options;
    this.id = 'jp-figure-chat-sidebar';
    this.addClass('jp-FigureChat-sidebar');
    this.title.caption = trans.__('Figure Chat');
    const header = new Widget();
    header.addClass('jp-FigureChat-header');
    this._title = document.createElement('span');
    this._title.className = 'jp-FigureChat-header-title';
    header.node.append(this._title);
    for (const action of _options.actions) {
      const button = document.createElement('button');
      button.className = 'jp-FigureChat-header-button jp-mod-styled';
      button.dataset.action = action.id;
      button.textContent = action.label;
      button.title = action.title;
      button.onclick = () => action.run();
      header.node.append(button);
    }
    const settingsButton = document.createElement('button');
    settingsButton.className = 'jp-FigureChat-header-button jp-mod-styled';
    settingsButton.dataset.action = 'settings';
    settingsButton.textContent = trans.__('Settings');
    settingsButton.title = trans.__('Open Settings → Figure Chat');
    settingsButton.onclick = () => _options.openSettings();
    header.node.append(settingsButton);
    this._model = document.createElement('div');
    this._model.className = 'jp-FigureChat-header-model';
    header.node.append(this._model);
    this.addWidget(header);
    _options.settings.changed.connect(this._updateModel, this);
    this._updateModel();
    this._placeholder = new Widget();
    this._placeholder.addClass('jp-FigureChat-placeholder');
    this._placeholder.node.textContent = trans.__(
      'Open a notebook to chat about it. Each notebook keeps its own conversation.'
    );
    this.addWidget(this._placeholder);
    this._updateTitle();
  }

  /** The chat view of the notebook shown now. */
  get currentView(): ChatView | null {
    return this._current ? (this._views.get(this._current) ?? null) : null;
  }

  /** The notebook shown now. */
  get currentNotebook(): NotebookPanel | null {
    return this._current;
  }

  /** Show the chat of a notebook (creating its session the first time). */
  async showNotebook(panel: NotebookPanel | null): Promise<void> {
    if (panel === this._current) {
      return;
    }
    this.currentView?.hide();
    this._current = panel;
    if (!panel) {
      this._placeholder.show();
      this._updateTitle();
      return;
    }
    const view = await this._viewFor(panel, true);
    if (!view || this._current !== panel) {
      return;
    }
    this._placeholder.hide();
    view.show();
    this._updateTitle();
  }

  /**
   * The chat session of a notebook, made (hidden) if the sidebar has not shown it yet: calls from
   * other agents on an open notebook run in it. Null once the notebook is closed.
   */
  async sessionFor(panel: NotebookPanel): Promise<ChatSession | null> {
    return (await this._viewFor(panel, false))?.session ?? null;
  }

  /**
   * The view of a notebook's chat, made the first time: visible when the sidebar is about to show
   * it (so it lays out and draws what is in view first, as it always did), hidden when only its
   * session is wanted (an agent's call). `show` also gives up if the notebook stopped being the
   * current one while it got ready, so no view is made for a notebook the sidebar left.
   */
  private async _viewFor(panel: NotebookPanel, show: boolean): Promise<ChatView | null> {
    let view = this._views.get(panel);
    if (!view) {
      await panel.context.ready;
      if (panel.isDisposed || (show && this._current !== panel)) {
        return null;
      }
      // Another call for the same notebook may have made its view while this one waited (the
      // chat left the notebook and came back before it was ready): use that one, never a second.
      view = this._views.get(panel);
    }
    if (!view) {
      const model = panel.context.model;
      const services = { ...this._options.services, viewWidth: () => this._viewWidth() };
      const session = new ChatSession(model, services, panel.context.saveState);
      view = new ChatView({ ...this._options, session });
      if (!show) {
        view.hide();
      }
      this._views.set(panel, view);
      this.addWidget(view);
      panel.disposed.connect(() => this._forget(panel));
      panel.context.pathChanged.connect(() => this._updateTitle());
    }
    return view;
  }

  protected onAfterShow(msg: Parameters<Widget['processMessage']>[0]): void {
    super.onAfterShow(msg);
    // After JupyterLab has laid the opened side area out.
    requestAnimationFrame(() => this._fitFirstOpen());
  }

  /**
   * The first time this browser shows the chat, widen the side area to {@link firstOpenWidth}
   * (only ever wider). Once only: a width the person chose later is JupyterLab's to restore.
   */
  private _fitFirstOpen(): void {
    if (this.isDisposed || !this.isVisible || readFlag()) {
      return;
    }
    const found = splitAncestor(this);
    if (!found) {
      return;
    }
    const { split, child } = found;
    const index = split.widgets.indexOf(child);
    const total = split.node.clientWidth;
    const current = child.node.offsetWidth;
    const target = firstOpenWidth(window.innerWidth);
    writeFlag();
    if (index < 0 || total <= 0 || current >= target) {
      return;
    }
    const sizes = split.relativeSizes();
    const sum = sizes.reduce((a, b) => a + b, 0) || 1;
    const share = target / total;
    const grown = share - sizes[index] / sum;
    // The room comes from the widest other part (the main area).
    const widest = sizes.reduce(
      (best, size, i) => (i !== index && size > sizes[best] ? i : best),
      index === 0 ? 1 : 0
    );
    sizes[widest] = Math.max(0, sizes[widest] / sum - grown);
    sizes[index] = share;
    split.setRelativeSizes(
      sizes.map((size, i) => (i === index || i === widest ? size : size / sum))
    );
  }

  protected onResize(msg: Widget.ResizeMessage): void {
    super.onResize(msg);
    const wider = msg.width < 0 || msg.width > this._width;
    this._width = msg.width;
    if (wider) {
      // Once the resize settles (dragging the sidebar's edge resizes it at every step).
      clearTimeout(this._widened);
      this._widened = setTimeout(() => {
        for (const view of this._views.values()) {
          view.session.visionViews.widthChanged();
        }
      }, WIDEN_DELAY_MS);
    }
  }

  /**
   * The width views are shown at, in device pixels (they fit the chat's width): at most the
   * panel's. Measured only when no resize has said it (a read of `clientWidth` lays the page
   * out, and requests for views go out while the chat is being built).
   */
  private _viewWidth(): number | undefined {
    if (this._width < 0) {
      this._width = this.node.clientWidth;
    }
    return this._width > 0 ? this._width * window.devicePixelRatio : undefined;
  }

  private _forget(panel: NotebookPanel): void {
    const view = this._views.get(panel);
    this._views.delete(panel);
    if (this._current === panel) {
      this._current = null;
      this._placeholder.show();
      this._updateTitle();
    }
    if (view) {
      view.session.dispose();
      view.dispose();
    }
  }

  private _updateModel(): void {
    const { model, endpoint } = this._options.settings.current;
    this._model.textContent = this._options.trans.__('%1 at %2', model, endpoint);
    this._model.title = this._options.trans.__(
      'The model and endpoint in use; change them in Settings → Figure Chat.'
    );
  }

  private _updateTitle(): void {
    this._title.textContent = this._current
      ? this._options.trans.__(
          'Figure Chat — %1',
          this._current.context.localPath.split('/').pop() ?? ''
        )
      : this._options.trans.__('Figure Chat');
  }

  dispose(): void {
    clearTimeout(this._widened);
    for (const panel of [...this._views.keys()]) {
      this._forget(panel);
    }
    this._options.settings.changed.disconnect(this._updateModel, this);
    super.dispose();
  }
}

/** The split panel holding `widget` (JupyterLab's main one), and its child holding `widget`. */
function splitAncestor(widget: Widget): { split: SplitPanel; child: Widget } | null {
  let child = widget;
  for (let parent = widget.parent; parent; parent = parent.parent) {
    if (parent instanceof SplitPanel) {
      return { split: parent, child };
    }
    child = parent;
  }
  return null;
}

function readFlag(): boolean {
  try {
    return window.localStorage.getItem(FIRST_OPEN_KEY) !== null;
  } catch {
    return true; // no storage (a locked-down browser): never resize on each page load
  }
}

function writeFlag(): void {
  try {
    window.localStorage.setItem(FIRST_OPEN_KEY, '1');
  } catch {
    // nothing to remember it in
  }
}
