/**
 * The browser's `Worker`, for jest's Node environment: the script a page would run (a `blob:` URL
 * made by `URL.createObjectURL`) runs in a Node worker thread, with `self.onmessage` and
 * `self.postMessage` as a dedicated worker has them and Node's own `fetch` and `performance`.
 * Messages posted before the thread has started wait for it, as a browser queues them.
 */
import { resolveObjectURL } from 'node:buffer';
import { Worker as NodeWorker } from 'node:worker_threads';

/** What runs before the page's script in the thread: the worker globals it uses. */
const PRELUDE = `
const { parentPort } = require('node:worker_threads');
globalThis.self = globalThis;
globalThis.postMessage = (data, transfer) => parentPort.postMessage(data, transfer);
parentPort.on('message', data => globalThis.onmessage && globalThis.onmessage({ data }));
`;

export class ThreadWorker {
  /** Every worker started, for tests to count and stop. */
  static readonly started: ThreadWorker[] = [];

  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  /** Messages the page posted, in order. */
  readonly posted: unknown[] = [];
  private _thread: NodeWorker | undefined;
  private _queue: Array<[unknown, Transferable[] | undefined]> = [];
  private _terminated = false;

  constructor(
    url: string | URL,
    readonly options?: { name?: string }
  ) {
    ThreadWorker.started.push(this);
    const blob = resolveObjectURL(String(url));
    if (!blob) {
      throw new TypeError(`no script at ${String(url)}`);
    }
    void blob.text().then(source => {
      if (this._terminated) {
        return;
      }
      const thread = new NodeWorker(`${PRELUDE}\n${source}`, { eval: true });
      thread.on('message', data => this.onmessage?.({ data } as MessageEvent));
      thread.on('error', error => this.onerror?.(error));
      this._thread = thread;
      for (const [data, transfer] of this._queue.splice(0)) {
        thread.postMessage(data, transfer as never);
      }
    });
  }

  postMessage(data: unknown, transfer?: Transferable[]): void {
    this.posted.push(data);
    if (this._thread) {
      this._thread.postMessage(data, transfer as never);
    } else {
      this._queue.push([data, transfer]);
    }
  }

  terminate(): void {
    this._terminated = true;
    void this._thread?.terminate();
  }
}
