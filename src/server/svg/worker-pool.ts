/**
 * A bounded pool of worker threads with a time limit per task, so work whose cost an untrusted
 * input decides (resvg parsing a model's figure) never runs on the thread that answers requests.
 *
 * One task per worker at a time. A task over its time limit has its worker terminated (the only
 * way to stop native code mid-call) and a fresh worker takes its place. `heavy` tasks may occupy
 * all workers but one, so a small task always finds a worker soon even while large ones run.
 */
import { Worker } from 'node:worker_threads';

/** A task ran longer than the pool's time limit; its worker was terminated. */
export class WorkerTimeoutError extends Error {
  constructor(readonly limitMs: number) {
    super(`the task took longer than ${limitMs} ms and was stopped`);
    this.name = 'WorkerTimeoutError';
  }
}

/** More tasks are waiting than the pool queues; the caller should answer "busy, retry". */
export class WorkerPoolBusyError extends Error {
  constructor(readonly waiting: number) {
    super(`${waiting} tasks are already waiting`);
    this.name = 'WorkerPoolBusyError';
  }
}

/** A worker died or answered something that is not an answer (a bug, not the input's fault). */
export class WorkerFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerFailedError';
  }
}

/** How a pool is set up. */
export interface WorkerPoolOptions {
  /** The worker's script (a `.cjs` file); resolved on first use, so a pool costs nothing idle. */
  readonly script: () => string;
  /** Passed to every worker as `workerData`. */
  readonly workerData?: unknown;
  /** Workers at most; at least 2, so `heavy` tasks leave one free. */
  readonly size: number;
  /** Time limit of one task, from the moment a worker takes it. */
  readonly timeoutMs: number;
  /** Tasks that may wait for a worker; more are refused with `WorkerPoolBusyError`. */
  readonly maxWaiting: number;
  /** JS heap limit of each worker, in MB (native memory is bounded by the task's own limits). */
  readonly maxHeapMb?: number;
}

/** What a worker posts back: the task's answer, or why it failed. */
export type WorkerAnswer<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

interface Task<Q, A> {
  readonly request: Q;
  readonly heavy: boolean;
  readonly resolve: (answer: A) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  heavy: boolean;
  busy: boolean;
}

function isAnswer(value: unknown): value is WorkerAnswer<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { ok?: unknown }).ok === 'boolean'
  );
}

/** A pool of worker threads answering requests of type `Q` with answers of type `A`. */
export class WorkerPool<Q, A> {
  private readonly _slots: Slot[] = [];
  private readonly _waiting: Task<Q, A>[] = [];
  private _script: string | undefined;

  constructor(private readonly _options: WorkerPoolOptions) {
    if (_options.size < 2) {
      throw new RangeError('a worker pool needs at least 2 workers');
    }
  }

  /** Tasks waiting for a worker. */
  get waiting(): number {
    return this._waiting.length;
  }

  /**
   * Run one task. `heavy` tasks never take the last free worker.
   *
   * @throws WorkerPoolBusyError, WorkerTimeoutError or WorkerFailedError (as a rejection).
   */
  run(request: Q, heavy: boolean): Promise<A> {
    if (this._waiting.length >= this._options.maxWaiting) {
      return Promise.reject(new WorkerPoolBusyError(this._waiting.length));
    }
    return new Promise<A>((resolve, reject) => {
      this._waiting.push({ request, heavy, resolve, reject });
      this._dispatch();
    });
  }

  /** Stop every worker; waiting tasks are refused. */
  async close(): Promise<void> {
    for (const task of this._waiting.splice(0)) {
      task.reject(new WorkerFailedError('the worker pool was closed'));
    }
    await Promise.all(this._slots.splice(0).map(slot => slot.worker.terminate()));
  }

  private _dispatch(): void {
    while (this._waiting.length > 0) {
      const heavyRunning = this._slots.filter(slot => slot.busy && slot.heavy).length;
      // Light tasks first; a heavy one only while it would leave a worker for the next light one.
      const index = this._waiting.findIndex(task => !task.heavy);
      const next = index >= 0 ? index : heavyRunning < this._options.size - 1 ? 0 : -1;
      if (next < 0) {
        return;
      }
      const slot = this._freeSlot();
      if (!slot) {
        return;
      }
      const [task] = this._waiting.splice(next, 1);
      this._start(slot, task);
    }
  }

  private _freeSlot(): Slot | undefined {
    // All workers start together, so the one kept for small tasks is warm when it is needed.
    while (this._slots.length < this._options.size) {
      this._spawn();
    }
    return this._slots.find(slot => !slot.busy);
  }

  private _spawn(): void {
    this._script ??= this._options.script();
    const worker = new Worker(this._script, {
      workerData: this._options.workerData,
      resourceLimits: this._options.maxHeapMb
        ? { maxOldGenerationSizeMb: this._options.maxHeapMb }
        : undefined
    });
    const slot: Slot = { worker, heavy: false, busy: false };
    // An idle worker must not keep a command-line process alive.
    worker.unref();
    // A worker that dies while idle is dropped (a busy one fails its task too, in `_start`); its
    // 'error' must have a listener, or it would take the whole server down.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      const index = this._slots.indexOf(slot);
      if (index >= 0) {
        this._slots.splice(index, 1);
      }
    });
    this._slots.push(slot);
  }

  private _retire(slot: Slot): void {
    const index = this._slots.indexOf(slot);
    if (index >= 0) {
      this._slots.splice(index, 1);
    }
    void slot.worker.terminate();
  }

  private _start(slot: Slot, task: Task<Q, A>): void {
    slot.busy = true;
    slot.heavy = task.heavy;
    slot.worker.ref();
    const { worker } = slot;
    let settled = false;
    const finish = (error: Error | undefined, answer?: A): void => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (error) {
        this._retire(slot);
        task.reject(error);
      } else {
        slot.busy = false;
        worker.unref();
        task.resolve(answer as A);
      }
      this._dispatch();
    };
    const onMessage = (message: unknown): void => {
      if (!isAnswer(message)) {
        finish(new WorkerFailedError('the worker answered something unexpected'));
      } else if (message.ok) {
        finish(undefined, message.value as A);
      } else {
        finish(new WorkerFailedError(message.message));
      }
    };
    const onError = (error: Error): void =>
      finish(new WorkerFailedError(`the worker failed (${error.message})`));
    const onExit = (code: number): void =>
      finish(new WorkerFailedError(`the worker exited with code ${code}`));
    const timer = setTimeout(
      () => finish(new WorkerTimeoutError(this._options.timeoutMs)),
      this._options.timeoutMs
    );
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(task.request);
  }
}
