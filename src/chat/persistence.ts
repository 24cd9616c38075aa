/**
 * Keeps a conversation in its notebook's metadata under `figure_chat`: loaded once when the
 * notebook opens (and again if the file is reverted), written back as the conversation changes,
 * throttled, so the notebook becomes dirty and JupyterLab's save and autosave keep it. Nothing
 * else in the notebook is touched.
 */
import type { INotebookModel } from '@jupyterlab/notebook';
import { JSONExt, type ReadonlyPartialJSONValue } from '@lumino/coreutils';
import type { IDisposable } from '@lumino/disposable';
import type { ISignal } from '@lumino/signaling';

import { loadTranscript, METADATA_KEY } from '../tools/transcript';
import { mergeOwnEntries, missesOwnEntries } from './collaboration';
import type { Conversation } from './conversation';

/** How often, at most, a changed conversation is written into the notebook model. */
export const WRITE_INTERVAL_MS = 250;

/**
 * How often, at most, while an answer streams. Each write serialises the whole conversation into
 * the notebook model, which in a long conversation costs a long task (issue 11.9); the partial
 * answer is still written before every save and at the end of the turn.
 */
export const STREAMING_WRITE_INTERVAL_MS = 1000;

/**
 * Whether two metadata values are the same JSON. Key order does not count: the shared notebook
 * model need not keep it, and a reordered value must not make the notebook dirty.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) {
    return a === b;
  }
  return JSONExt.deepEqual(a as ReadonlyPartialJSONValue, b as ReadonlyPartialJSONValue);
}

/** The binding of a conversation to a notebook model. */
export class NotebookTranscriptStore implements IDisposable {
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _lastWritten: unknown;
  private _writing = false;
  private _isDisposed = false;
  // Collaboration (only when the notebook model is shared): ids seen in stored values, and the ids
  // this client created, which are the only entries it writes (collaboration.ts).
  private readonly _storedIds = new Set<string>();
  private readonly _own = new Set<string>();

  /**
   * `saving` is the document context's `saveState`: on `started` the pending change is written
   * first, so a save or autosave in the middle of an answer keeps what has streamed so far.
   */
  constructor(
    private readonly _model: INotebookModel,
    private readonly _conversation: Conversation,
    private readonly _saving?: ISignal<unknown, string>
  ) {
    this._lastWritten = this._model.getMetadata(METADATA_KEY);
    this._conversation.load(this._lastWritten);
    this._noteStoredIds();
    this._conversation.changed.connect(this._onConversationChanged, this);
    this._model.metadataChanged.connect(this._onMetadataChanged, this);
    this._saving?.connect(this._onSaving, this);
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Write any pending change now (before a save, or on dispose). */
  flush(): void {
    if (this._timer !== undefined) {
      clearTimeout(this._timer);
      this._timer = undefined;
    }
    if (this._isDisposed || this._model.isDisposed) {
      return;
    }
    if (this._conversation.problem) {
      // An unreadable stored value is never overwritten until the user starts over.
      return;
    }
    if (this._model.collaborative) {
      this._noteOwnIds();
      const shared = this._model.getMetadata(METADATA_KEY);
      if (!sameJson(shared, this._lastWritten)) {
        this._mergeShared(shared);
      }
    }
    const value = this._conversation.toStored();
    const empty = (value.messages as unknown[]).length === 0 && this._lastWritten === undefined;
    if (empty || sameJson(value, this._lastWritten)) {
      return;
    }
    this._writing = true;
    try {
      this._model.setMetadata(METADATA_KEY, value);
      this._lastWritten = this._model.getMetadata(METADATA_KEY);
    } finally {
      this._writing = false;
    }
  }

  /** The stored value now, as the notebook holds it (for undo). */
  get stored(): unknown {
    return this._model.isDisposed ? undefined : this._model.getMetadata(METADATA_KEY);
  }

  /**
   * Put a previously stored value back as it was (undo of "New"): written to the notebook
   * unchanged, even one this version could not read, and loaded into the conversation.
   */
  restore(value: unknown): void {
    if (this._isDisposed || this._model.isDisposed) {
      return;
    }
    if (this._timer !== undefined) {
      clearTimeout(this._timer);
      this._timer = undefined;
    }
    this._writing = true;
    try {
      if (value === undefined) {
        this._model.deleteMetadata(METADATA_KEY);
      } else {
        this._model.setMetadata(METADATA_KEY, value as ReadonlyPartialJSONValue);
      }
      this._lastWritten = this._model.getMetadata(METADATA_KEY);
    } finally {
      this._writing = false;
    }
    this._conversation.load(this._lastWritten);
    // Loading emits `changed`; what it would write is what is stored already.
    if (this._timer !== undefined) {
      clearTimeout(this._timer);
      this._timer = undefined;
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this.flush();
    this._isDisposed = true;
    this._conversation.changed.disconnect(this._onConversationChanged, this);
    this._saving?.disconnect(this._onSaving, this);
    if (!this._model.isDisposed) {
      this._model.metadataChanged.disconnect(this._onMetadataChanged, this);
    }
  }

  private _onConversationChanged(): void {
    if (this._timer === undefined) {
      const streaming = this._conversation.live.streamingId !== undefined;
      const delay = streaming ? STREAMING_WRITE_INTERVAL_MS : WRITE_INTERVAL_MS;
      this._timer = setTimeout(() => this.flush(), delay);
    }
  }

  private _onSaving(_: unknown, state: string): void {
    if (state === 'started' && this._timer !== undefined) {
      this.flush();
    }
  }

  private _onMetadataChanged(_: INotebookModel, change: { key: string; newValue?: unknown }): void {
    if (this._writing || change.key !== METADATA_KEY) {
      return;
    }
    if (this._model.collaborative) {
      this._onSharedChanged(change.newValue);
      return;
    }
    const live = this._conversation.live;
    if (live.streamingId || live.runningCallIds?.size) {
      return; // the live turn wins; it writes again shortly
    }
    if (!sameJson(change.newValue, this._lastWritten)) {
      this._lastWritten = change.newValue;
      this._conversation.load(change.newValue);
      this._noteStoredIds();
    }
  }

  /** Another client wrote the shared value: show its entries, keep ours, rewrite ours if lost. */
  private _onSharedChanged(value: unknown): void {
    if (sameJson(value, this._lastWritten)) {
      return;
    }
    this._noteOwnIds();
    this._lastWritten = value;
    const loaded = this._mergeShared(value);
    if (loaded && missesOwnEntries(loaded, this._conversation.entries, this._own)) {
      this._onConversationChanged();
    }
  }

  /** Merge a shared value into the conversation; the shared entries, or null if unreadable. */
  private _mergeShared(value: unknown): ReturnType<typeof loadTranscript>['entries'] | null {
    const loaded = loadTranscript(value);
    if (loaded.problem) {
      return null; // never merged into, like any unreadable value
    }
    for (const entry of loaded.entries) {
      if (entry.role !== 'unreadable') {
        this._storedIds.add(entry.id);
      }
    }
    const merged = mergeOwnEntries(loaded.entries, this._conversation.entries, this._own);
    this._conversation.replaceEntries(merged);
    return loaded.entries;
  }

  private _noteStoredIds(): void {
    for (const entry of this._conversation.entries) {
      if (entry.role !== 'unreadable') {
        this._storedIds.add(entry.id);
      }
    }
  }

  /** Entries this client made: in its copy, never seen in a stored value. */
  private _noteOwnIds(): void {
    for (const entry of this._conversation.entries) {
      if (entry.role !== 'unreadable' && !this._storedIds.has(entry.id)) {
        this._own.add(entry.id);
      }
    }
  }
}
