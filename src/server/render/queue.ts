/**
 * The render queue: a bounded number of renders at once, and a collection once it has gone idle.
 */

/**
 * Which waiters a freed slot goes to first. `visible`: views a person is looking at (the chat's
 * visible area); `background`: the rest (off-screen cards of a reopened conversation, the
 * warm-up). A reopened chat asks for off-screen views in requests of up to eight, two at a time:
 * a card scrolled into view meanwhile waited behind all of them.
 */
export type RenderLane = 'visible' | 'background';

/** A bounded queue: at most `limit` tasks run at once; `visible` waiters go before the others. */
export class Semaphore {
  private _running = 0;
  private readonly _waiting: Record<RenderLane, Array<() => void>> = {
    visible: [],
    background: []
  };

  constructor(readonly limit: number) {}

  /** Nothing running and nothing waiting. */
  get idle(): boolean {
    return this._running === 0 && !this._waiting.visible.length && !this._waiting.background.length;
  }

  /** Run `task` when a slot is free; a freed slot goes to the `visible` lane first. */
  async use<T>(task: () => Promise<T>, lane: RenderLane = 'background'): Promise<T> {
    if (this._running >= this.limit) {
      await new Promise<void>(resolve => this._waiting[lane].push(resolve));
    } else {
      this._running++;
    }
    try {
      return await task();
    } finally {
      const next = this._waiting.visible.shift() ?? this._waiting.background.shift();
      // The slot passes straight to the next waiter, so `_running` stays the same.
      if (next) {
        next();
      } else {
        this._running--;
      }
    }
  }
}

/** How long the renderer stays idle after a burst before it asks V8 to collect. */
export const IDLE_COLLECT_MS = 1000;

let idleCollection: NodeJS.Timeout | undefined;

/**
 * A burst of renders leaves tens of megabytes of finished views' buffers (held outside the JS heap)
 * for V8 to collect, and an idle server gives it no reason to: the memory stayed taken for good.
 * When the figure server runs with `--expose-gc` (its environment sets NODE_OPTIONS), one
 * collection after the queue has been idle a moment gives it back.
 */
export function collectWhenIdle(queue: Semaphore): void {
  if (typeof gc !== 'function') {
    return;
  }
  clearTimeout(idleCollection);
  idleCollection = setTimeout(() => {
    if (queue.idle) {
      gc?.();
    }
  }, IDLE_COLLECT_MS);
  idleCollection.unref();
}
