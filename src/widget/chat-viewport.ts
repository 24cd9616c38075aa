/**
 * What a chat shows first when it opens. On a two-core machine every off-screen figure checked,
 * picture decoded and view drawn while a conversation opens shares the cores with the few figures
 * and views a person looks at (issue 13, goal 4). The gate says when those are on screen: every
 * figure and view in the chat's visible area is rendered and its picture decoded, a frame has
 * been painted since, and then the off-screen work may start.
 */
import type { IDisposable } from '@lumino/disposable';

/**
 * The longest the off-screen work waits (ms): a view in the visible area that takes long (a slow
 * kernel, a large picture) or a chat scrolled away from its end before it settled must not keep
 * the rest of the conversation undrawn.
 */
export const VIEWPORT_WAIT_LIMIT_MS = 2000;

/** Parts of the chat that are not drawn yet while in view. */
const WAITING = [
  // A deferred part not rendered yet.
  '.jp-FigureChat-lazy',
  // A vision card whose views are queued or being drawn.
  '.jp-FigureChat-vision[data-views="rendering"]',
  '.jp-FigureChat-vision[data-views="unknown"]',
  // A figure or view whose picture is not decoded yet (checked below).
  'img.jp-FigureChat-figure-image'
].join(', ');

/** Whether a chat's visible area is drawn yet; opens once, then stays open. */
export class ViewportGate implements IDisposable {
  private _frame = 0;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _opened = false;
  private _isDisposed = false;
  /** Whether the chat has been seen showing (the wait limit counts from then). */
  private _seen = false;
  /** Images in view whose load is awaited (each listened to once). */
  private readonly _loading = new WeakSet<HTMLImageElement>();

  /**
   * @param _scroller The chat's scrolling element; the area it shows is the visible area.
   * @param _open Called once the visible area is drawn and painted, or after the wait limit.
   */
  constructor(
    private readonly _scroller: HTMLElement,
    private readonly _open: () => void,
    private readonly _limitMs = VIEWPORT_WAIT_LIMIT_MS
  ) {
    // A chat never shown opens after the limit too.
    this._timer = setTimeout(() => this._openNow(), _limitMs);
  }

  /** Whether the off-screen work may go. */
  get isOpen(): boolean {
    return this._opened;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Look again before the next frame (the chat rendered, a part of it was drawn). */
  check(): void {
    if (this._opened || this._isDisposed || this._frame) {
      return;
    }
    this._frame = requestAnimationFrame(() => {
      this._frame = 0;
      if (this._drawn()) {
        // After that frame is painted: what is in view is on screen before the rest starts.
        this._frame = requestAnimationFrame(() => {
          this._frame = 0;
          this._openNow();
        });
      }
    });
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    cancelAnimationFrame(this._frame);
    clearTimeout(this._timer);
  }

  private _openNow(): void {
    if (this._opened || this._isDisposed) {
      return;
    }
    this._opened = true;
    clearTimeout(this._timer);
    this._open();
  }

  /**
   * Whether every figure and view in the visible area is drawn. Reads the layout (once for all the
   * boxes), from a frame callback, a few times while the chat opens; an image still loading makes
   * its load look again.
   */
  private _drawn(): boolean {
    const scroller = this._scroller;
    if (!scroller.isConnected) {
      return false;
    }
    const area = scroller.getBoundingClientRect();
    if (area.height <= 0) {
      // Hidden (the sidebar shows another notebook's chat, or is about to show this one): what
      // it will show first is not known yet. Showing it looks again; the wait limit covers a chat
      // that is never shown.
      return false;
    }
    if (!this._seen) {
      // The limit counts from when the chat shows: it may be built a while before.
      this._seen = true;
      clearTimeout(this._timer);
      this._timer = setTimeout(() => this._openNow(), this._limitMs);
    }
    // The chat opens at its end; until it is there, what is in view is not what will be shown.
    if (scroller.scrollTop + scroller.clientHeight < scroller.scrollHeight - 2) {
      return false;
    }
    let drawn = true;
    for (const element of Array.from(scroller.querySelectorAll<HTMLElement>(WAITING))) {
      // An SVG figure's image has no size until it is decoded: its figure (caption) has.
      const box = (element.closest('figure') ?? element).getBoundingClientRect();
      if (box.bottom <= area.top || box.top >= area.bottom || box.height <= 0) {
        continue;
      }
      if (!(element instanceof HTMLImageElement)) {
        drawn = false;
      } else if (!element.complete) {
        // A picture that failed to load is complete too: nothing more will come.
        drawn = false;
        if (!this._loading.has(element)) {
          this._loading.add(element);
          element.addEventListener('load', () => this.check(), { once: true });
          element.addEventListener('error', () => this.check(), { once: true });
        }
      }
    }
    return drawn;
  }
}
