/**
 * The bar that offers to undo New, inside the chat panel above the messages. A toast in the
 * corner of the window covered the message box and Send of a sidebar chat for its 10 s (a click on
 * Send waited 11.2 s); a bar in the panel's own flow covers nothing.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

/** How long the offer stays. */
export const UNDO_SHOWN_MS = 10_000;

/** An inline "Started a new conversation. Undo" bar. */
export class UndoBar {
  readonly node: HTMLElement;
  private readonly _text: HTMLElement;
  private readonly _undo: HTMLButtonElement;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _action: (() => void) | null = null;

  constructor(trans: TranslationBundle) {
    this.node = document.createElement('div');
    this.node.className = 'jp-FigureChat-undoBar';
    this.node.setAttribute('role', 'status');
    this.node.hidden = true;
    this._text = document.createElement('span');
    this._text.className = 'jp-FigureChat-undoBar-text';
    this._undo = document.createElement('button');
    this._undo.type = 'button';
    this._undo.className = 'jp-FigureChat-undoBar-undo jp-mod-styled';
    this._undo.textContent = trans.__('Undo');
    this._undo.title = trans.__('Bring back the previous conversation');
    this._undo.onclick = () => {
      const action = this._action;
      this.hide();
      action?.();
    };
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'jp-FigureChat-undoBar-close jp-mod-styled';
    close.textContent = '×';
    close.title = trans.__('Dismiss');
    close.setAttribute('aria-label', trans.__('Dismiss'));
    close.onclick = () => this.hide();
    this.node.append(this._text, this._undo, close);
  }

  /** Offer `undo` under `text` for {@link UNDO_SHOWN_MS}. */
  show(text: string, undo: () => void): void {
    this.hide();
    this._text.textContent = text;
    this._action = undo;
    this.node.hidden = false;
    this._timer = setTimeout(() => this.hide(), UNDO_SHOWN_MS);
  }

  /** Withdraw the offer (timed out, dismissed, or the person went on in the new conversation). */
  hide(): void {
    clearTimeout(this._timer);
    this._timer = undefined;
    this._action = null;
    this.node.hidden = true;
  }

  dispose(): void {
    this.hide();
  }
}
