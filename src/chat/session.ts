/**
 * One notebook's chat: its conversation, kept in the notebook's metadata, and the turn running in
 * it (at most one). The widget shows a session; the sidebar switches sessions with the notebook.
 */
import type { INotebookModel } from '@jupyterlab/notebook';
import type { IDisposable } from '@lumino/disposable';
import { Signal, type ISignal } from '@lumino/signaling';

import type { LiveVisionWidgets } from '../tools/host';
import type { ToolRegistry } from '../tools/registry';
import type { AssistantMessage, UserMessage } from '../tools/transcript';
import { runTurn, type AgentSettings } from './agent';
import { rememberedNotice } from './agent-refusals';
import { Conversation } from './conversation';
import type { ModelTransport } from './model-client';
import { ModelQuirkMemory } from './model-quirks';
import { NotebookTranscriptStore } from './persistence';
import { VisionViews } from './vision-views';
import { createChatToolHost } from './tools/host';

/** What every session shares. */
export interface SessionServices {
  readonly registry: ToolRegistry;
  readonly transport: ModelTransport;
  settings(): AgentSettings;
  request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T>;
  /** This page's live Vision widgets (the kernel bridge), whose records the vision tools share. */
  readonly liveVision?: LiveVisionWidgets | null;
  /** The width in device pixels the chat shows views at, if known (see `VisionViewsOptions`). */
  viewWidth?(): number | undefined;
}

/** A notebook's chat session. */
export class ChatSession implements IDisposable {
  readonly conversation = new Conversation();
  /** The views of the conversation's vision calls (cards read them). */
  readonly visionViews: VisionViews;
  private readonly _store: NotebookTranscriptStore;
  private _abort: AbortController | null = null;
  /** What models refused, by endpoint + model: it outlives New, and never holds back another model. */
  private readonly _quirks = new ModelQuirkMemory();
  private readonly _busyChanged = new Signal<this, boolean>(this);
  private _isDisposed = false;

  /** `saving`: the document context's `saveState` (pending writes go in before each save). */
  constructor(
    private _model: INotebookModel,
    private readonly _services: SessionServices,
    saving?: ISignal<unknown, string>
  ) {
    this._store = new NotebookTranscriptStore(_model, this.conversation, saving);
    const shared = createChatToolHost({
      notebook: () => this.notebookModel,
      conversation: this.conversation,
      request: (route, body, signal) => this._services.request(route, body, signal),
      liveVision: _services.liveVision
    }).vision.shared;
    this.visionViews = new VisionViews(this.conversation, {
      request: (route, body, signal) => this._services.request(route, body, signal),
      notebook: () => this.notebookModel,
      shared,
      viewWidth: () => this._services.viewWidth?.()
    });
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
    const host = createChatToolHost({
      notebook: () => this.notebookModel,
      conversation: this.conversation,
      request: (route, body, signal) => this._services.request(route, body, signal),
      liveVision: this._services.liveVision
    });
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

  /** Whether the last turn ended with an error and no answer text (the question may be resent). */
  get lastTurnFailed(): boolean {
    const last = this.conversation.entries[this.conversation.entries.length - 1];
    return (
      last?.role === 'assistant' &&
      typeof last.error === 'string' &&
      !last.content &&
      !last.tool_calls?.length
    );
  }

  /**
   * Start a new conversation (replacing the stored one). Returns the stored value it replaced, for
   * `restore`, or undefined when nothing was replaced: a conversation written by a newer version is
   * never replaced.
   */
  clear(): unknown {
    if (this.conversation.isNewer) {
      return undefined;
    }
    this.stop();
    this._store.flush();
    const previous = this._store.stored;
    this.conversation.clear();
    // The refusals outlive New (the same model still refuses), and so does what they tell the user.
    const { endpoint, model } = this._services.settings();
    const notice = rememberedNotice(this._quirks.of(endpoint, model));
    if (notice) {
      this.conversation.setNotice(notice);
    }
    this._store.flush();
    return previous;
  }

  /** Put back a conversation `clear` replaced (undo). */
  restore(previous: unknown): void {
    this.stop();
    this._store.restore(previous);
  }

  /** Ask a failed question again: the failed exchange is replaced by the new attempt. */
  retry(question: UserMessage, failed: AssistantMessage): Promise<void> {
    if (this.busy) {
      return Promise.resolve();
    }
    this.conversation.remove(failed.id);
    this.conversation.remove(question.id);
    return this.send(question.content, question.attachments ?? []);
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this.stop();
    this._store.dispose();
    this._isDisposed = true;
    this.visionViews.dispose();
    this.conversation.dispose();
    Signal.clearData(this);
  }
}
