/**
 * The message box: grows with its text up to a limit, Enter sends and Shift+Enter starts a new
 * line; Enter while an answer streams queues the message (shown, cancellable) and sends it when
 * the answer ends. A question whose request failed goes back into the empty box, so nothing typed
 * is lost.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import type { ChatSession } from '../chat/session';

/** The tallest the message box grows, in px, before it scrolls. */
const MAX_INPUT_HEIGHT_PX = 200;

/** What the composer needs. */
export interface ComposerOptions {
  readonly session: ChatSession;
  readonly trans: TranslationBundle;
  /** Called when a message is sent (the view shows the newest message). */
  onSend(): void;
}

/** The composer of a chat view. */
export class Composer {
  readonly node: HTMLElement;
  private readonly _input: HTMLTextAreaElement;
  private readonly _send: HTMLButtonElement;
  private readonly _attachments: HTMLElement;
  private readonly _status: HTMLElement;
  private _pending: string[] = [];
  private _queued: { text: string; attachments: string[] } | null = null;
  private _lastSent: { text: string; attachments: string[] } | null = null;

  constructor(private readonly _options: ComposerOptions) {
    const { trans } = _options;
    this.node = document.createElement('div');
    this.node.className = 'jp-FigureChat-composer';
    this._attachments = document.createElement('div');
    this._attachments.className = 'jp-FigureChat-attachments';
    this._status = document.createElement('div');
    this._status.className = 'jp-FigureChat-composerStatus';
    this._status.hidden = true;
    this._input = document.createElement('textarea');
    this._input.className = 'jp-FigureChat-input';
    this._input.rows = 2;
    this._input.placeholder = trans.__(
      'Ask about this notebook (Enter to send, Shift+Enter for a new line, Escape stops an answer)'
    );
    this._input.setAttribute('aria-label', trans.__('Message'));
    this._send = document.createElement('button');
    this._send.className = 'jp-FigureChat-send jp-mod-styled jp-mod-accept';
    this.node.append(this._status, this._attachments, this._input, this._send);
    _options.session.busyChanged.connect(this._onBusy, this);
    this._updateButton();
  }

  attachListeners(): void {
    this._send.addEventListener('click', this);
    this._input.addEventListener('keydown', this);
    this._input.addEventListener('input', this);
  }

  detachListeners(): void {
    this._send.removeEventListener('click', this);
    this._input.removeEventListener('keydown', this);
    this._input.removeEventListener('input', this);
  }

  dispose(): void {
    this._options.session.busyChanged.disconnect(this._onBusy, this);
  }

  focus(): void {
    this._input.focus();
  }

  /** Put a text in the box (an example prompt), ready to edit or send. */
  fill(text: string): void {
    this._input.value = text;
    this._grow();
    this._input.focus();
  }

  setDisabled(disabled: boolean): void {
    this._input.disabled = disabled;
  }

  attach(address: string): void {
    if (!this._pending.includes(address)) {
      this._pending.push(address);
      this._renderAttachments();
    }
  }

  /** Send what is in the box, or queue it while an answer streams. */
  submit(): void {
    const session = this._options.session;
    const text = this._input.value.trim();
    if (!text || session.conversation.problem) {
      return;
    }
    const message = { text, attachments: this._pending };
    this._input.value = '';
    this._pending = [];
    this._renderAttachments();
    this._grow();
    if (session.busy) {
      this._queued = message;
      this._renderStatus();
      return;
    }
    this._sendNow(message);
  }

  handleEvent(event: Event): void {
    if (event.type === 'click') {
      if (this._options.session.busy) {
        this._options.session.stop();
      } else {
        this.submit();
      }
    } else if (event.type === 'input') {
      this._grow();
    } else if (event.type === 'keydown') {
      const key = event as KeyboardEvent;
      if (key.key === 'Enter' && !key.shiftKey && !key.isComposing) {
        key.preventDefault();
        this.submit();
      }
    }
  }

  private _sendNow(message: { text: string; attachments: string[] }): void {
    this._lastSent = message;
    this._options.onSend();
    void this._options.session.send(message.text, message.attachments);
  }

  private _onBusy(_: ChatSession, busy: boolean): void {
    this._updateButton();
    if (busy) {
      return;
    }
    const failed = this._options.session.lastTurnFailed;
    if (failed && this._lastSent && !this._input.value) {
      // The request failed: the question goes back into the box, ready to send again.
      this._input.value = this._lastSent.text;
      this._pending = this._lastSent.attachments;
      this._renderAttachments();
      this._grow();
    }
    this._lastSent = null;
    const queued = this._queued;
    this._queued = null;
    this._renderStatus();
    if (queued && !failed) {
      this._sendNow(queued);
    } else if (queued) {
      // Not sent after a failure: back into the box rather than into a failing endpoint.
      this._input.value = [this._input.value, queued.text].filter(Boolean).join('\n\n');
      this._grow();
    }
  }

  private _grow(): void {
    this._input.style.height = 'auto';
    this._input.style.height = `${Math.min(this._input.scrollHeight + 2, MAX_INPUT_HEIGHT_PX)}px`;
  }

  private _updateButton(): void {
    const { trans } = this._options;
    const busy = this._options.session.busy;
    this._send.textContent = busy ? trans.__('Stop') : trans.__('Send');
    this._send.title = busy ? trans.__('Stop the answer (Escape)') : trans.__('Send the message');
    this._send.classList.toggle('jp-mod-warn', busy);
    this._send.classList.toggle('jp-mod-accept', !busy);
    this.node.parentElement?.classList.toggle('jp-FigureChat-view-mod-busy', busy);
  }

  private _renderStatus(): void {
    const { trans } = this._options;
    this._status.hidden = !this._queued;
    this._status.replaceChildren();
    if (!this._queued) {
      return;
    }
    const text = document.createElement('span');
    text.className = 'jp-FigureChat-queued';
    text.textContent = trans.__(
      'Queued: “%1” is sent when this answer ends.',
      this._queued.text.length > 80 ? `${this._queued.text.slice(0, 80)}…` : this._queued.text
    );
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'jp-FigureChat-iconButton';
    cancel.textContent = trans.__('Cancel');
    cancel.onclick = () => {
      if (this._queued && !this._input.value) {
        this._input.value = this._queued.text;
        this._grow();
      }
      this._queued = null;
      this._renderStatus();
    };
    this._status.append(text, cancel);
  }

  private _renderAttachments(): void {
    this._attachments.replaceChildren(
      ...this._pending.map(address => {
        const chip = document.createElement('span');
        chip.className = 'jp-FigureChat-attachment';
        chip.textContent = address;
        const remove = document.createElement('button');
        remove.className = 'jp-FigureChat-attachment-remove';
        remove.textContent = '×';
        remove.title = this._options.trans.__('Remove attachment');
        remove.onclick = () => {
          this._pending = this._pending.filter(a => a !== address);
          this._renderAttachments();
        };
        chip.append(remove);
        return chip;
      })
    );
  }
}
