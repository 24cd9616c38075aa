/**
 * The chat of one notebook: messages, tool cards and figures in order, and the composer. Renders
 * from the conversation's stored entries through `buildChatItems`, live and replayed alike, and
 * re-renders only the items that changed.
 */
import { MimeModel, type IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { buildChatItems, type ChatItem } from '../chat/cards';
import type { ChatSession } from '../chat/session';
import type { CardRenderContext, CardRendererRegistry } from './card-renderers';
import { renderThinking } from './thinking';

/** What a chat view needs from the extension. */
export interface ChatViewOptions {
  readonly session: ChatSession;
  readonly rendermime: IRenderMimeRegistry;
  readonly cards: CardRendererRegistry;
  readonly trans: TranslationBundle;
  openLarger(src: string, title: string): void;
}

function keyOf(item: ChatItem): string {
  switch (item.kind) {
    case 'user':
    case 'assistant':
      return `${item.kind}:${item.message.id}`;
    case 'tool':
      return `tool:${item.messageId}:${item.call.id}`;
    case 'unreadable':
      return `unreadable:${item.entry.index}`;
    case 'orphan-result':
      return `orphan:${item.message.id}`;
  }
}

function signatureOf(item: ChatItem, views: string): string {
  switch (item.kind) {
    case 'user':
      return item.message.content;
    case 'assistant':
      return `${item.message.status}|${item.live}|${String(item.message.error ?? '')}|${item.message.content}|${item.message.reasoning ?? ''}`;
    case 'tool':
      return `${item.state}|${item.result?.content ?? ''}|${views}`;
    case 'unreadable':
      return item.entry.reason;
    case 'orphan-result':
      return item.message.content;
  }
}

/** The chat view of one session. */
export class ChatView extends Widget {
  private readonly _messages: HTMLElement;
  private readonly _notice: HTMLElement;
  private readonly _input: HTMLTextAreaElement;
  private readonly _send: HTMLButtonElement;
  private readonly _attachments: HTMLElement;
  private readonly _rendered = new Map<string, { element: HTMLElement; signature: string }>();
  private _pendingAttachments: string[] = [];
  private _frame = 0;

  constructor(private readonly _options: ChatViewOptions) {
    super();
    const { trans } = _options;
    this.addClass('jp-FigureChat-view');
    this._messages = document.createElement('div');
    this._messages.className = 'jp-FigureChat-messages';
    this._messages.setAttribute('role', 'log');
    this._messages.setAttribute('aria-live', 'polite');
    this._notice = document.createElement('div');
    this._notice.className = 'jp-FigureChat-notice';
    this._notice.hidden = true;
    const composer = document.createElement('div');
    composer.className = 'jp-FigureChat-composer';
    this._attachments = document.createElement('div');
    this._attachments.className = 'jp-FigureChat-attachments';
    this._input = document.createElement('textarea');
    this._input.className = 'jp-FigureChat-input';
    this._input.rows = 3;
    this._input.placeholder = trans.__(
      'Ask about this notebook (Enter to send, Shift+Enter for a new line)'
    );
    this._input.setAttribute('aria-label', trans.__('Message'));
    this._send = document.createElement('button');
    this._send.className = 'jp-FigureChat-send jp-mod-styled jp-mod-accept';
    composer.append(this._attachments, this._input, this._send);
    this.node.append(this._messages, this._notice, composer);
    this.session.conversation.changed.connect(this._schedule, this);
    this.session.busyChanged.connect(this._updateButton, this);
    this._updateButton();
    this._render();
  }

  get session(): ChatSession {
    return this._options.session;
  }

  /** Put a picture address on the message being written. */
  attach(address: string): void {
    if (!this._pendingAttachments.includes(address)) {
      this._pendingAttachments.push(address);
      this._renderAttachments();
    }
  }

  /** Focus the message box. */
  focusInput(): void {
    this._input.focus();
  }

  /** Send what is in the message box. */
  submit(): void {
    const text = this._input.value.trim();
    if (!text || this.session.busy) {
      return;
    }
    if (this.session.conversation.problem) {
      return;
    }
    this._input.value = '';
    const attachments = this._pendingAttachments;
    this._pendingAttachments = [];
    this._renderAttachments();
    void this.session.send(text, attachments);
  }

  handleEvent(event: Event): void {
    if (event.type === 'click' && event.currentTarget === this._send) {
      if (this.session.busy) {
        this.session.stop();
      } else {
        this.submit();
      }
    } else if (event.type === 'keydown') {
      const key = event as KeyboardEvent;
      if (key.key === 'Enter' && !key.shiftKey && !key.isComposing) {
        key.preventDefault();
        this.submit();
      }
    }
  }

  protected onAfterAttach(): void {
    this._send.addEventListener('click', this);
    this._input.addEventListener('keydown', this);
    this._render();
  }

  protected onBeforeDetach(): void {
    this._send.removeEventListener('click', this);
    this._input.removeEventListener('keydown', this);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    cancelAnimationFrame(this._frame);
    this.session.conversation.changed.disconnect(this._schedule, this);
    this.session.busyChanged.disconnect(this._updateButton, this);
    super.dispose();
  }

  private _updateButton(): void {
    const { trans } = this._options;
    const busy = this.session.busy;
    this._send.textContent = busy ? trans.__('Stop') : trans.__('Send');
    this._send.title = busy ? trans.__('Stop the answer') : trans.__('Send the message');
    this._send.classList.toggle('jp-mod-warn', busy);
    this._send.classList.toggle('jp-mod-accept', !busy);
    this.node.classList.toggle('jp-FigureChat-view-mod-busy', busy);
  }

  private _renderAttachments(): void {
    this._attachments.replaceChildren(
      ...this._pendingAttachments.map(address => {
        const chip = document.createElement('span');
        chip.className = 'jp-FigureChat-attachment';
        chip.textContent = address;
        const remove = document.createElement('button');
        remove.className = 'jp-FigureChat-attachment-remove';
        remove.textContent = '×';
        remove.title = this._options.trans.__('Remove attachment');
        remove.onclick = () => {
          this._pendingAttachments = this._pendingAttachments.filter(a => a !== address);
          this._renderAttachments();
        };
        chip.append(remove);
        return chip;
      })
    );
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
    const problem = conversation.problem;
    const notice = problem
      ? trans.__(
          'This notebook holds a Figure Chat conversation that cannot be read (%1). Start a new conversation to replace it.',
          problem
        )
      : conversation.notice;
    this._notice.hidden = !notice;
    this._notice.textContent = notice ?? '';
    this._input.disabled = !!problem;
    const atBottom =
      this._messages.scrollHeight - this._messages.scrollTop - this._messages.clientHeight < 40;
    const items = buildChatItems(conversation.entries, conversation.live);
    const context: CardRenderContext = {
      trans,
      conversation,
      notebook: () => this.session.notebookModel,
      request: (route, body, signal) => this.session.request(route, body, signal),
      openLarger: (src, title) => this._options.openLarger(src, title)
    };
    const seen = new Set<string>();
    const elements: HTMLElement[] = [];
    for (const item of items) {
      const key = keyOf(item);
      seen.add(key);
      const views =
        item.kind === 'tool'
          ? `${conversation.views(item.call.id)?.length ?? 0}|${conversation.viewProblem(item.call.id) ?? ''}`
          : '';
      const signature = signatureOf(item, views);
      let rendered = this._rendered.get(key);
      if (!rendered || rendered.signature !== signature) {
        rendered = { element: this._renderItem(item, context), signature };
        this._rendered.set(key, rendered);
      }
      elements.push(rendered.element);
    }
    for (const key of [...this._rendered.keys()]) {
      if (!seen.has(key)) {
        this._rendered.delete(key);
      }
    }
    if (!items.length) {
      const empty = document.createElement('div');
      empty.className = 'jp-FigureChat-empty';
      empty.textContent = trans.__(
        'Ask the model about this notebook. The conversation is saved in the notebook.'
      );
      elements.push(empty);
    }
    const current = Array.from(this._messages.children);
    if (current.length !== elements.length || current.some((child, i) => child !== elements[i])) {
      this._messages.replaceChildren(...elements);
    }
    if (atBottom) {
      this._messages.scrollTop = this._messages.scrollHeight;
    }
  }

  private _renderItem(item: ChatItem, context: CardRenderContext): HTMLElement {
    const { trans } = this._options;
    switch (item.kind) {
      case 'user': {
        const element = document.createElement('div');
        element.className = 'jp-FigureChat-message jp-FigureChat-message-mod-user';
        const text = document.createElement('div');
        text.className = 'jp-FigureChat-userText';
        text.textContent = item.message.content;
        element.append(text);
        for (const address of item.message.attachments ?? []) {
          const chip = document.createElement('span');
          chip.className = 'jp-FigureChat-attachment';
          chip.textContent = address;
          element.append(chip);
        }
        return element;
      }
      case 'assistant': {
        const element = document.createElement('div');
        element.className = 'jp-FigureChat-message jp-FigureChat-message-mod-assistant';
        element.dataset.status = item.live ? 'streaming' : item.message.status;
        const previous = this._rendered.get(keyOf(item))?.element;
        const thinking = renderThinking(item.message, item.live, trans, previous);
        if (thinking) {
          element.append(thinking);
        }
        if (item.message.content) {
          const body = document.createElement('div');
          body.className = 'jp-FigureChat-markdown';
          element.append(body);
          void this._renderMarkdown(body, item.message.content);
        }
        if (typeof item.message.error === 'string') {
          const error = document.createElement('div');
          error.className = 'jp-FigureChat-error';
          error.setAttribute('role', 'alert');
          error.textContent = item.message.error;
          element.append(error);
        } else if (item.message.status === 'interrupted' && !item.live) {
          const note = document.createElement('div');
          note.className = 'jp-FigureChat-interrupted';
          note.textContent = trans.__('Interrupted');
          element.append(note);
        }
        return element;
      }
      case 'tool':
        return this._options.cards.render(item, context);
      case 'unreadable': {
        const element = document.createElement('div');
        element.className = 'jp-FigureChat-unreadable';
        element.textContent = trans.__(
          'Unreadable entry %1: %2',
          item.entry.index,
          item.entry.reason
        );
        return element;
      }
      case 'orphan-result': {
        const element = document.createElement('div');
        element.className = 'jp-FigureChat-unreadable';
        element.textContent = trans.__('Tool result without its call: %1', item.message.content);
        return element;
      }
    }
  }

  private async _renderMarkdown(host: HTMLElement, text: string): Promise<void> {
    // Untrusted: JupyterLab's sanitizer runs, and nothing in the Markdown executes.
    const renderer = this._options.rendermime.createRenderer('text/markdown');
    const model = new MimeModel({ data: { 'text/markdown': text }, trusted: false });
    await renderer.renderModel(model);
    host.replaceChildren(renderer.node);
  }
}
