/**
 * One notebook's chat: its conversation, kept in the notebook's metadata, and the turn running in
 * it (at most one). The widget shows a session; the sidebar switches sessions with the notebook.
 */
import type { INotebookModel } from '@jupyterlab/notebook';
import type { IDisposable } from '@lumino/disposable';
import { Signal, type ISignal } from '@lumino/signaling';

import type { ToolRegistry } from '../tools/registry';
import { runTurn, type AgentSettings } from './agent';
import { Conversation } from './conversation';
import type { ModelTransport } from './model-client';
import { ModelQuirkMemory } from './model-quirks';
import { NotebookTranscriptStore } from './persistence';
import type { ChatToolHost } from './tools/host';

/** What every session shares. */
export interface SessionServices {
  readonly registry: ToolRegistry;
  readonly transport: ModelTransport;
  settings(): AgentSettings;
  request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T>;
}

/** A notebook's chat session. */
export class ChatSession implements IDisposable {
  readonly conversation = new Conversation();
  private readonly _store: NotebookTranscriptStore;
  private _abort: AbortController | null = null;
  /** What models refused, by endpoint + model: it outlives New, and never holds back another model. */
  private readonly _quirks = new ModelQuirkMemory();
  private readonly _busyChanged = new Signal<this, boolean>(this);
  private _isDisposed = false;

  constructor(
    private _model: INotebookModel,
    private readonly _services: SessionServices
  ) {
    this._store = new NotebookTranscriptStore(_model, this.conversation);
  }

  /** Emitted when a turn starts (true) or ends (false). */
  get busyChanged(): ISignal<this, boolean> {
    return this._busyChanged;
  }

  /** The notebook model, or null once it is closed. */
  get notebookModel(): INotebookModel | null {
    return this._isDisposed || this._model.isDisposed ? null : this._model;
  }

  /** POST to a figure-server route. */
  request<T>(
    route: string,
    body: unknown,
    signal: AbortSignal = new AbortController().signal
  ): Promise<T> {
    return this._services.request<T>(route, body, signal);
  }

  get busy(): boolean {
    return this._abort !== null;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Ask the model; resolves when the turn ends. */
  async send(text: string, attachments: string[] = []): Promise<void> {
    if (this.busy || this._isDisposed) {
      return;
    }
    const abort = new AbortController();
    this._abort = abort;
    this._busyChanged.emit(true);
    const host: ChatToolHost = {
      kind: 'figure-chat-session',
      notebook: () => this.notebookModel,
      conversation: this.conversation,
      request: (route, body, signal) => this._services.request(route, body, signal)
    };
    const deps = {
      registry: this._services.registry,
      transport: this._services.transport,
      settings: this._services.settings(),
      toolHost: host,
      quirks: this._quirks,
      modelTakesImages: async (endpoint: string, model: string, signal: AbortSignal) =>
        (
          await this._services.request<{ images: boolean | null }>(
            'model-info',
            { endpoint, model },
            signal
          )
        ).images
    };
    try {
      await runTurn(this.conversation, deps, text, attachments, abort.signal);
    } finally {
      this._abort = null;
      this._store.flush();
      if (!this._isDisposed) {
        this._busyChanged.emit(false);
      }
    }
  }

  /** Stop the running turn at once; what it wrote so far is kept, marked interrupted. */
  stop(): void {
    this._abort?.abort();
  }

  /** Start a new conversation (replacing the stored one). */
  clear(): void {
    this.stop();
    this.conversation.clear();
    this._store.flush();
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this.stop();
    this._store.dispose();
    this._isDisposed = true;
    this.conversation.dispose();
    Signal.clearData(this);
  }
}
