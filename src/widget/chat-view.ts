/**
 * The chat of one notebook: messages, tool cards and figures in order, and the composer. Renders
 * from the conversation's stored entries through `buildChatItems`, live and replayed alike, and
 * re-renders only the items that changed; an assistant message's Markdown updates in place.
 * Follows the end of the conversation while the reader is there, and offers "jump to latest" when
 * they scrolled up and something new arrived.
 */
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { buildChatItems, type ChatItem } from '../chat/cards';
import type { ChatSession } from '../chat/session';
import type { CardRenderContext, CardRendererRegistry } from './card-renderers';
import { copyText, retryQuestion, startOver } from './chat-actions';
import { renderEmptyState } from './chat-empty';
import { EndFollower } from './chat-follow';
import type { FigureServer } from './figure-raster';
import { chatNotices } from './chat-notices';
import { AssistantMessageView, renderUserMessage, type MessageActions } from './chat-items';
import { placeInChunks } from './chat-chunks';
import { baseKey, endSignature, signatureOf, viewsSignature } from './chat-keys';
import { isVisionTool } from '../tools/vision';
import { Composer } from './composer';
import { ViewportGate } from './chat-viewport';
import { LazyRenderer } from './lazy-render';
import { RenderQueue } from './markdown-view';
import { UndoBar } from './undo-bar';

/** One chat item as the view shows it: its element, and what it was rendered from. */
interface RenderedItem {
  readonly element: HTMLElement;
  readonly signature: string;
  readonly assistant?: AssistantMessageView;
  /** A tool card's call. */
  readonly callId?: string;
}

/** What a chat view needs from the extension. */
export interface ChatViewOptions {
  readonly session: ChatSession;
  readonly rendermime: IRenderMimeRegistry;
  readonly cards: CardRendererRegistry;
  readonly trans: TranslationBundle;
  openLarger(src: string, title: string, server?: FigureServer): void;
  openSettings(): void;
  insertCode(code: string, mode: 'below' | 'replace'): void;
  /** The model's name, shown as the author of its messages. */
  modelName(): string;
  allowRemoteImages(): boolean;
}

/** The chat view of one session. */
export class ChatView extends Widget {
  private readonly _scroller: HTMLElement;
  private readonly _messages: HTMLElement;
  private readonly _notice: HTMLElement;
  private readonly _undo: UndoBar;
  private readonly _jump: HTMLButtonElement;
  private readonly _composer: Composer;
  private readonly _queue = new RenderQueue();
  private readonly _lazy: LazyRenderer;
  /** Opens when what the chat shows first is drawn: off-screen parts and views wait for it. */
  private readonly _gate: ViewportGate;
  private readonly _rendered = new Map<string, RenderedItem>();
  private readonly _actions: MessageActions;
  private readonly _follower: EndFollower;
  private _frame = 0;
  /** Calls whose views changed, rendered at the end of this task ({@link ChatView._viewsChanged}). */
  private _changedCalls = new Set<string>();
  private _end = '';

  constructor(private readonly _options: ChatViewOptions) {
    super();
    const { trans } = _options;
    this.addClass('jp-FigureChat-view');
    this._scroller = document.createElement('div');
    this._scroller.className = 'jp-FigureChat-scroller';
    this._messages = document.createElement('div');
    this._messages.className = 'jp-FigureChat-messages';
    this._messages.setAttribute('role', 'log');
    this._messages.setAttribute('aria-live', 'polite');
    this._scroller.append(this._messages);
    // Until the visible area is drawn, only parts and views in it are drawn.
    this._lazy = new LazyRenderer(
      this._scroller,
      () => {
        this._follower.changed();
        this._gate.check();
      },
      { held: true }
    );
    _options.session.visionViews.hold();
    this._gate = new ViewportGate(this._scroller, () => this._releaseOffscreen());
    this._jump = document.createElement('button');
    this._jump.type = 'button';
    this._jump.className = 'jp-FigureChat-jump jp-mod-styled';
    this._jump.textContent = trans.__('↓ Jump to latest');
    this._jump.hidden = true;
    this._follower = new EndFollower(this._scroller, this._messages, this._jump);
    this._notice = document.createElement('div');
    this._notice.className = 'jp-FigureChat-notice';
    this._notice.hidden = true;
    this._actions = {
      trans,
      modelName: () => _options.modelName(),
      copy: text => void copyText(text, trans),
      insertCode: (code, mode) => _options.insertCode(code, mode),
      retry: message => retryQuestion(this.session, message),
      openSettings: () => _options.openSettings()
    };
    this._composer = new Composer({
      session: _options.session,
      trans,
      onSend: () => {
        // A question in the new conversation: undoing New now would throw it away.
        this._undo.hide();
        this.scrollToLatest();
      }
    });
    this._undo = new UndoBar(trans);
    const stage = document.createElement('div');
    stage.className = 'jp-FigureChat-stage';
    stage.append(this._scroller, this._jump);
    this.node.append(this._undo.node, this._notice, stage, this._composer.node);
    this.session.conversation.changed.connect(this._schedule, this);
    this.session.visionViews.changed.connect(this._viewsChanged, this);
    this._render();
  }

  get session(): ChatSession {
    return this._options.session;
  }

  /** Put a picture address on the message being written. */
  attach(address: string): void {
    this._composer.attach(address);
  }

  /** Focus the message box. */
  focusInput(): void {
    this._composer.focus();
  }

  /** Send what is in the message box. */
  submit(): void {
    this._composer.submit();
  }

  /** Show the newest message and follow the conversation again. */
  scrollToLatest(): void {
    this._follower.scrollToLatest();
  }

  /** Start a new conversation, with an undo in the panel (never over the message box). */
  startOver(): void {
    const { trans } = this._options;
    const previous = startOver(this.session, trans);
    if (previous !== undefined) {
      this._undo.show(trans.__('Started a new conversation.'), () => {
        if (!this.isDisposed) {
          this.session.restore(previous);
        }
      });
    }
  }

  handleEvent(event: Event): void {
    if (event.type === 'keydown') {
      const key = event as KeyboardEvent;
      if (key.key === 'Escape' && this.session.busy) {
        key.preventDefault();
        this.session.stop();
      }
    }
  }

  protected onAfterAttach(): void {
    this._follower.attach();
    this.node.addEventListener('keydown', this);
    this._composer.attachListeners();
    this._render();
  }

  protected onAfterShow(): void {
    // Open at the newest message.
    this.scrollToLatest();
    this._gate.check();
  }

  protected onBeforeDetach(): void {
    this._follower.detach();
    this.node.removeEventListener('keydown', this);
    this._composer.detachListeners();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    cancelAnimationFrame(this._frame);
    this._gate.dispose();
    // The views service is the session's: never leave it holding views back for this view.
    this.session.visionViews.release();
    this._follower.dispose();
    this._queue.dispose();
    this._lazy.dispose();
    this._composer.dispose();
    this._undo.dispose();
    this.session.conversation.changed.disconnect(this._schedule, this);
    this.session.visionViews.changed.disconnect(this._viewsChanged, this);
    super.dispose();
  }

  /** Draw what is off-screen: parts near the visible area first, then the rest. */
  private _releaseOffscreen(): void {
    this._lazy.release();
    this.session.visionViews.release();
  }

  /**
   * A call's views changed (drawn, or failed). A card on show is rendered again in this task, not
   * at the next frame: while a notebook opens, JupyterLab's own tasks hold frames back by
   * 50–100 ms on two cores, and a view placed at a frame had its picture decoded only for the
   * frame after, where placed now it is decoded while those tasks run. The views of one answer
   * (a batch) come together: one render for them all. A card still a placeholder waits for the
   * frame as before: it is rendered when the observer finds it in view, whatever its state.
   */
  private _viewsChanged(_views: unknown, callId: string): void {
    const queued = this._changedCalls.size > 0;
    this._changedCalls.add(callId);
    if (queued) {
      return;
    }
    queueMicrotask(() => {
      const calls = this._changedCalls;
      this._changedCalls = new Set();
      if (this.isDisposed) {
        return;
      }
      const onShow = [...this._rendered.values()].some(
        rendered =>
          rendered.callId !== undefined &&
          calls.has(rendered.callId) &&
          !rendered.element.classList.contains('jp-FigureChat-lazy')
      );
      if (!onShow) {
        this._schedule();
        return;
      }
      cancelAnimationFrame(this._frame);
      this._frame = 0;
      // Where the reader is, before the chat changes outside a frame (see `notePosition`).
      this._follower.notePosition();
      this._render();
    });
  }

  private _schedule(): void {
    if (!this._frame) {
      this._frame = requestAnimationFrame(() => {
        this._frame = 0;
        this._render();
      });
    }
  }

  private _render(): void {
    if (this.isDisposed) {
      return;
    }
    const conversation = this.session.conversation;
    const { trans } = this._options;
    const notices = chatNotices(conversation, trans);
    this._notice.hidden = !notices.length;
    this._notice.textContent = notices.join(' ');
    this._composer.setDisabled(!!conversation.problem);
    const items = buildChatItems(conversation.entries, conversation.live);
    const context: CardRenderContext = {
      trans,
      conversation,
      notebook: () => this.session.notebookModel,
      request: (route, body, signal) => this.session.request(route, body, signal),
      views: this.session.visionViews,
      openLarger: (src, title, server) => this._options.openLarger(src, title, server)
    };
    const seen = new Map<string, number>();
    const used = new Set<string>();
    const elements: HTMLElement[] = [];
    for (const item of items) {
      // Colliding ids (a conversation pasted twice) still get an element each.
      const base = baseKey(item);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      const key = count ? `${base}#${count}` : base;
      used.add(key);
      const views =
        item.kind === 'tool' ? viewsSignature(this.session.visionViews.state(item.call.id)) : '';
      const signature = signatureOf(item, views);
      let rendered = this._rendered.get(key);
      if (!rendered || rendered.signature !== signature) {
        if (rendered) {
          this._lazy.forget(rendered.element);
        }
        // A part already on show is replaced at once (a live card moving on), never by a
        // placeholder.
        const shown = !!rendered && !rendered.element.classList.contains('jp-FigureChat-lazy');
        rendered = this._renderItem(item, context, signature, shown);
        this._rendered.set(key, rendered);
      }
      if (item.kind === 'assistant') {
        rendered.assistant?.update(item.message, item.live);
      }
      elements.push(rendered.element);
    }
    for (const key of [...this._rendered.keys()]) {
      if (!used.has(key)) {
        this._lazy.forget((this._rendered.get(key) as { element: HTMLElement }).element);
        this._rendered.delete(key);
      }
    }
    if (!items.length) {
      elements.push(renderEmptyState(trans, prompt => this._composer.fill(prompt)));
    }
    placeInChunks(this._messages, elements);
    const end = endSignature(items);
    if (end !== this._end) {
      this._end = end;
      this._follower.newAtEnd();
    }
    this._follower.changed();
    this._gate.check();
  }

  private _renderItem(
    item: ChatItem,
    context: CardRenderContext,
    signature: string,
    shown: boolean
  ): RenderedItem {
    const { trans, rendermime } = this._options;
    switch (item.kind) {
      case 'user':
        return { element: renderUserMessage(item.message, this._actions), signature };
      case 'assistant': {
        const assistant = new AssistantMessageView(item.message, this._actions, {
          parser: rendermime.markdownParser,
          sanitizer: rendermime.sanitizer,
          queue: this._queue,
          trans,
          allowRemoteImages: () => this._options.allowRemoteImages(),
          onRendered: () => this._follower.changed(),
          whenNear: (node, render) => this._lazy.whenNear(node, render)
        });
        return { element: assistant.node, signature, assistant };
      }
      case 'tool': {
        const name = item.call.name;
        const render = (): HTMLElement => this._options.cards.render(item, context);
        // Figures and views are the costly parts (an SVG check, a picture to decode): off-screen
        // ones wait until they come near the visible area.
        if (item.state !== 'completed' || (name !== 'present_svg' && !isVisionTool(name))) {
          return { element: render(), signature };
        }
        const callId = item.call.id;
        const kind =
          name === 'present_svg'
            ? 'figure'
            : `vision:${this.session.visionViews.state(callId).kind}`;
        // A card coming into view has its views drawn next.
        const near = (visible: boolean): void =>
          this.session.visionViews.prioritize(callId, visible);
        const element = shown ? this._lazy.now(kind, render) : this._lazy.defer(kind, render, near);
        return { element, signature, callId };
      }
      case 'unreadable': {
        const element = document.createElement('div');
        element.className = 'jp-FigureChat-unreadable';
        element.textContent = trans.__(
          'Unreadable entry %1: %2',
          item.entry.index,
          item.entry.reason
        );
        return { element, signature };
      }
      case 'orphan-result': {
        const element = document.createElement('div');
        element.className = 'jp-FigureChat-unreadable';
        element.textContent = trans.__('Tool result without its call: %1', item.message.content);
        return { element, signature };
      }
    }
  }
}
