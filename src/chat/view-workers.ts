/**
 * Who draws a conversation's queued views, and when: workers take batches from a
 * {@link ViewQueue}, newest or nearest the visible area first, {@link CONCURRENT_RENDERS} at a
 * time and {@link URGENT_RENDERS} more for a call a person waits for. The newest call leads alone
 * while the chat opens, and off-screen calls wait while the chat is held (what it shows first is
 * not on screen yet). What a batch is and how it is drawn is ./view-batches'; what each call shows
 * is ./vision-views'.
 */
import { ViewQueue, type ViewJob } from './view-batches';

/**
 * Views rendered at once. The figure server draws two at a time (its render queue); a second
 * request in flight keeps it busy while the browser reads the other answer, and on a machine that
 * other processes load, two requests get two shares of its cores instead of one.
 */
export const CONCURRENT_RENDERS = 2;

/**
 * Requests a call a person waits for may add beyond {@link CONCURRENT_RENDERS}: a card scrolled
 * into view while both requests draw off-screen cards (up to eight views each) would otherwise
 * wait for one of them to come back. Its request overtakes them at the figure server too.
 */
export const URGENT_RENDERS = 1;

/** Draw one batch of views (`urgent`: a person is looking at, or is about to see, them). */
export type DrawBatch = (batch: ViewJob[], urgent: boolean) => Promise<void>;

/** The workers of one conversation's view queue. */
export class ViewWorkers {
  private readonly _queue = new ViewQueue();
  /**
   * The newest call is drawn first, alone and with the figure server to itself: the chat opens at
   * the end, so its views are the ones in view (on a loaded 2-core machine a second request at
   * the same time made it wait about twice as long). Set while that request is in flight.
   */
  private _leading = false;
  /** Off-screen views wait: the chat is drawing what it shows first (see {@link hold}). */
  private _held = false;
  /** Workers rendering from the queue now. */
  private _workers = 0;
  private _stopped = false;

  /**
   * @param _draw Draws a batch; its failures are its own to report (a rejection is dropped).
   * @param _drained Called when the last worker stops with the queue empty.
   */
  constructor(
    private readonly _draw: DrawBatch,
    private readonly _drained: () => void
  ) {}

  /** Whether views are queued or being drawn. */
  get busy(): boolean {
    return this._queue.length > 0 || this._workers > 0;
  }

  /** Whether this call's views are queued. */
  has(callId: string): boolean {
    return this._queue.has(callId);
  }

  /** Queue a call's views (drawn once {@link drain} runs). */
  push(job: ViewJob): void {
    this._queue.push(job);
  }

  /** Draw this call's views next (`visible`: its card is in the chat's visible area). */
  prioritize(callId: string, visible: boolean): void {
    this._queue.prioritize(callId, visible);
    this.drain();
  }

  /** Draw only the newest call's views and those of calls in view until {@link release}. */
  hold(): void {
    this._held = true;
  }

  /** Draw the rest. */
  release(): void {
    if (this._held) {
      this._held = false;
      this.drain();
    }
  }

  /** Forget every queued call (batches being drawn finish; their callers abort them). */
  clear(): void {
    this._queue.clear();
  }

  /** Stop for good: nothing more is taken from the queue. */
  stop(): void {
    this._stopped = true;
    this._queue.clear();
  }

  /**
   * Start workers on the queue, up to {@link CONCURRENT_RENDERS}, and {@link URGENT_RENDERS} more
   * for calls a person waits for. A call in view does not wait for the newest call's request:
   * both are what the chat shows first.
   */
  drain(): void {
    while (this._hasWorkerSlot() && this._canTake()) {
      this._workers += 1;
      void this._work();
    }
  }

  /** Whether one more worker may run: within the usual number, or for a call a person waits for. */
  private _hasWorkerSlot(): boolean {
    return (
      this._workers < CONCURRENT_RENDERS ||
      (this._workers < CONCURRENT_RENDERS + URGENT_RENDERS && this._queue.hasNear)
    );
  }

  /** Whether a worker may take the next batch now. */
  private _canTake(): boolean {
    return (
      !this._stopped && (!this._leading || this._queue.hasVisible) && this._queue.ready(this._held)
    );
  }

  /** Render queued views until the queue is empty; stops when the workers are stopped. */
  private async _work(): Promise<void> {
    try {
      // Newest (or prioritized) first, from the end of the queue. A worker beyond the usual
      // number stops once no call a person waits for is left.
      while (this._canTake() && (this._workers <= CONCURRENT_RENDERS || this._queue.hasNear)) {
        const { batch, leads, urgent } = this._queue.take(undefined, this._held);
        this._leading ||= leads;
        await this._draw(batch, urgent);
        if (leads) {
          this._leading = false;
          this.drain();
        }
      }
    } finally {
      // In the same turn as the look that found the queue empty, so a job queued from now on
      // finds a free worker slot in `drain`.
      this._workers -= 1;
      if (!this._workers && !this._queue.length && !this._stopped) {
        this._drained();
      }
    }
  }
}
