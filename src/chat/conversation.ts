/**
 * A conversation in memory: the stored entries plus what only the live session knows (which
 * message streams, which calls run, the views rendered this session). Emits `changed` on every
 * change; persistence and the widget both listen.
 */
import type { IDisposable } from '@lumino/disposable';
import { Signal, type ISignal } from '@lumino/signaling';

import type { ToolImage } from '../tools/registry';
import {
  loadTranscript,
  storeTranscript,
  TRANSCRIPT_VERSION,
  type StoredMessage,
  type UnreadableEntry
} from '../tools/transcript';
import type { LiveState } from './cards';

let counter = 0;

/** A message id unique within a conversation (and, in practice, across them). */
export function newMessageId(prefix = 'm'): string {
  counter += 1;
  const random = Math.floor(Math.random() * 0x100000000).toString(36);
  return `${prefix}${Date.now().toString(36)}${counter.toString(36)}${random}`;
}

/** Whether a stored value declares a version above the one this code writes. */
function isNewerVersion(value: unknown): boolean {
  if (!value || typeof value !== 'object' || !('version' in value)) {
    return false;
  }
  const version = value.version;
  return typeof version === 'number' && version > TRANSCRIPT_VERSION;
}

/** A conversation bound to nothing: the chat layer's unit of state. */
export class Conversation implements IDisposable {
  private _entries: Array<StoredMessage | UnreadableEntry> = [];
  private _extra: Record<string, unknown> = {};
  private _problem: string | undefined;
  private _isNewer = false;
  private _live: LiveState = {};
  private _notice: string | undefined;
  private readonly _views = new Map<string, ReadonlyArray<ToolImage>>();
  private readonly _changed = new Signal<this, void>(this);
  private _isDisposed = false;

  /** Emitted after any change. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get entries(): ReadonlyArray<StoredMessage | UnreadableEntry> {
    return this._entries;
  }

  /** Why the stored value could not be read at all, if so (then it is never overwritten silently). */
  get problem(): string | undefined {
    return this._problem;
  }

  /**
   * Whether the stored value was written by a newer Figure Chat (a higher `version`). Such a
   * conversation is shown as unreadable and is never replaced by this version.
   */
  get isNewer(): boolean {
    return this._isNewer;
  }

  get live(): LiveState {
    return this._live;
  }

  /** A passing notice for the user (for example: images fell back to text). */
  get notice(): string | undefined {
    return this._notice;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Views rendered in this session for a tool call. */
  views(callId: string): ReadonlyArray<ToolImage> | undefined {
    return this._views.get(callId);
  }

  /** Replace the whole conversation with a stored value (untrusted). */
  load(value: unknown): void {
    const loaded = loadTranscript(value);
    this._entries = [...loaded.entries];
    this._extra = loaded.extra;
    this._problem = loaded.problem;
    this._isNewer = isNewerVersion(value);
    this._live = {};
    this._views.clear();
    this._changed.emit();
  }

  /** The value to store. */
  toStored(): Record<string, unknown> {
    return storeTranscript(this._extra, this._entries);
  }

  /** Start over: an empty conversation (this also replaces an unreadable stored value). */
  clear(): void {
    this._entries = [];
    this._extra = {};
    this._problem = undefined;
    this._isNewer = false;
    this._live = {};
    this._notice = undefined;
    this._views.clear();
    this._changed.emit();
  }

  /**
   * Replace the entries with a merge of another client's writes (collaboration.ts), keeping the
   * live turn: unlike `load`, a streaming answer goes on.
   */
  replaceEntries(entries: ReadonlyArray<StoredMessage | UnreadableEntry>): void {
    this._entries = [...entries];
    this._changed.emit();
  }

  append(message: StoredMessage): void {
    this._entries.push(message);
    this._changed.emit();
  }

  /** Change a stored message by id. */
  update(id: string, patch: Partial<StoredMessage>): void {
    const index = this._indexOf(id);
    if (index < 0) {
      return;
    }
    this._entries[index] = { ...this._entries[index], ...patch } as StoredMessage;
    this._changed.emit();
  }

  /**
   * Where a stored message is. The streaming answer, updated on every delta, is the last entry:
   * looking there first keeps a delta's cost independent of the conversation's length.
   */
  private _indexOf(id: string): number {
    const last = this._entries.length - 1;
    const newest = this._entries[last];
    if (newest && newest.role !== 'unreadable' && newest.id === id) {
      return last;
    }
    return this._entries.findIndex(entry => entry.role !== 'unreadable' && entry.id === id);
  }

  /** Remove a stored message by id (only for a reply that is about to be retried). */
  remove(id: string): void {
    this._entries = this._entries.filter(entry => entry.role === 'unreadable' || entry.id !== id);
    this._changed.emit();
  }

  setLive(live: LiveState): void {
    this._live = live;
    this._changed.emit();
  }

  setNotice(notice: string | undefined): void {
    this._notice = notice;
    this._changed.emit();
  }

  setViews(callId: string, views: ReadonlyArray<ToolImage>): void {
    this._views.set(callId, views);
    this._changed.emit();
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    Signal.clearData(this);
  }
}
