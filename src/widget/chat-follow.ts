/**
 * Following the end of a chat: the view stays at the newest message while the reader is there,
 * stops when they scroll up, and shows "jump to latest" when something new arrives below.
 *
 * Heights are read only after the browser laid the chat out (a ResizeObserver on the content),
 * never from a render: reading `scrollHeight` right after a change forces a layout of the whole
 * chat, which in a 1,000-message conversation was a long task per frame (issue 11.9).
 */

/** How close to the end (px) still counts as "at the end". */
export const FOLLOW_SLACK_PX = 48;

/** The follow state of one scrolling chat. */
export class EndFollower implements EventListenerObject {
  private readonly _resize: ResizeObserver | null;
  private _frame = 0;
  private _follow = true;
  private _lastHeight = 0;
  private _disposed = false;

  /**
   * @param _scroller The scrolling element.
   * @param content The element whose size changes as messages render (observed).
   * @param _jump The "jump to latest" button.
   */
  constructor(
    private readonly _scroller: HTMLElement,
    content: HTMLElement,
    private readonly _jump: HTMLButtonElement
  ) {
    this._resize =
      typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => this._settle());
    this._resize?.observe(content);
  }

  /** Whether the view follows the end. */
  get following(): boolean {
    return this._follow;
  }

  /** Show the newest message and follow the conversation again. */
  scrollToLatest(): void {
    this._follow = true;
    this._jump.hidden = true;
    this._scroller.scrollTop = this._scroller.scrollHeight;
  }

  /**
   * Something new arrived at the end of the conversation (a message, more of the streaming
   * answer): offer the jump if the reader is elsewhere. Earlier parts growing as they render
   * (placeholders, skipped messages coming into view) are not news and never show it.
   */
  newAtEnd(): void {
    if (!this._follow) {
      this._jump.hidden = false;
    }
  }

  /**
   * The content may have changed size. Without a ResizeObserver (not in browsers this runs in)
   * the view settles before the next frame instead.
   */
  changed(): void {
    if (this._resize || this._frame || this._disposed) {
      return;
    }
    this._frame = requestAnimationFrame(() => {
      this._frame = 0;
      if (!this._disposed) {
        this._settle();
      }
    });
  }

  attach(): void {
    this._scroller.addEventListener('scroll', this);
    this._scroller.addEventListener('wheel', this, { passive: true });
    this._jump.addEventListener('click', this);
  }

  detach(): void {
    this._scroller.removeEventListener('scroll', this);
    this._scroller.removeEventListener('wheel', this);
    this._jump.removeEventListener('click', this);
  }

  handleEvent(event: Event): void {
    if (event.type === 'wheel') {
      // Scrolling up is the reader leaving the end, even while the answer grows under them.
      if ((event as WheelEvent).deltaY < 0) {
        this._follow = false;
      }
    } else if (event.type === 'scroll') {
      this.notePosition();
    } else if (event.type === 'click') {
      this.scrollToLatest();
    }
  }

  /**
   * Take the reader's scroll position into account now: on a scroll event, and before the chat
   * changes between frames. A scroll event comes at the next frame, and one that finds the
   * content's height changed since the last layout is taken for content growing below, not the
   * reader leaving the end: a scroll (a scrollbar drag, a jump to a message) made before a change
   * the chat makes between frames would otherwise be ignored, and the view taken back to the end.
   */
  notePosition(): void {
    const { scrollHeight, scrollTop, clientHeight } = this._scroller;
    if (clientHeight === 0) {
      // Not shown (another notebook's chat is): no position a reader chose.
      return;
    }
    const distance = scrollHeight - scrollTop - clientHeight;
    // A scroll caused by content growing below is not the reader leaving the end.
    if (scrollHeight === this._lastHeight || distance < FOLLOW_SLACK_PX) {
      this._follow = distance < FOLLOW_SLACK_PX;
    }
    this._lastHeight = scrollHeight;
    if (this._follow) {
      this._jump.hidden = true;
    }
  }

  dispose(): void {
    this._disposed = true;
    this._resize?.disconnect();
    cancelAnimationFrame(this._frame);
  }

  /** After a layout: stay at the end when following. */
  private _settle(): void {
    if (this._follow) {
      this._scroller.scrollTop = this._scroller.scrollHeight;
    }
    this._lastHeight = this._scroller.scrollHeight;
  }
}
