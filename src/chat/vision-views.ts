/**
 * The views of a conversation's vision calls, owned in one place: one incremental fold of the
 * transcript (each new message is folded once, however many cards read it) and one abortable
 * render queue for views that must be drawn again (a replayed conversation; its workers and their
 * order are ./view-workers', a batch's request ./view-batches'). Cards only read
 * {@link VisionViews.state} and re-render on {@link VisionViews.changed}.
 *
 * Live calls bring their views with them (the agent stores them before it appends the result);
 * replayed calls are queued and rendered, {@link CONCURRENT_RENDERS} at a time (one more for a
 * call a person waits for), newest or nearest the visible area first, from the picture, the record
 * as the call saw it, and the picture's fingerprint. A call on a Vision output's shared record
 * starts from the record its result kept (what the model saw, whatever a person did in the widget
 * since), and its picture comes from the widget's kernel while there is one. A call with no views
 * (`vision_list`, `vision_mark` with `view: "none"`) is complete as soon as its result is.
 */
import type { INotebookModel } from '@jupyterlab/notebook';
import type { IDisposable } from '@lumino/disposable';
import { Signal, type ISignal } from '@lumino/signaling';

import type { SharedVisionRecord } from '../tools/host';
import type { ToolImage } from '../tools/registry';
import { isReadable, type StoredMessage } from '../tools/transcript';
import {
  describeMark,
  isVisionTool,
  planVisionCall,
  recordFor,
  validateRecord,
  VisionFold,
  type VisionPlan,
  type VisionRecord
} from '../tools/vision';
import type { Conversation } from './conversation';
import { FigureClient } from './figure-client';
import { pictureRequest } from './tools/pictures';
import {
  drawViewBatch,
  viewCacheKey,
  viewGroup,
  type BatchHost,
  type ViewJob
} from './view-batches';
import { MIN_DISPLAY_WIDTH } from '../tools/wire';
import { sessionViewCache } from './view-cache';
import { ViewRequests } from './view-requests';
import { ViewWorkers } from './view-workers';

export { CONCURRENT_RENDERS, URGENT_RENDERS } from './view-workers';

/** What a card shows for a vision call. */
export type ViewsState =
  /** Not a completed vision call with a picture (yet). */
  | { readonly kind: 'unknown' }
  /** The call has no views: the card is complete with its result. */
  | { readonly kind: 'none' }
  /** Queued or being drawn. */
  | { readonly kind: 'rendering' }
  | {
      readonly kind: 'ready';
      readonly views: ReadonlyArray<ToolImage>;
      /** The record the views show (for people's captions: each mark's colour and caption). */
      readonly record: VisionRecord;
    }
  /** Why the views cannot be shown (a changed or missing picture), with the text record. */
  | { readonly kind: 'problem'; readonly message: string };

/** What the service needs from its host. */
export interface VisionViewsOptions {
  /** POST to a figure-server route. */
  request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T>;
  /** The conversation's notebook (for `cell:` pictures), or null once it is closed. */
  notebook(): INotebookModel | null;
  /** The shared record of a Vision output's picture, whose bytes its widget's kernel holds. */
  shared?(address: string): SharedVisionRecord | null;
  /**
   * The width in device pixels the chat shows views at, if known: replayed views are drawn at
   * it (rounded up to {@link VIEW_WIDTH_STEP}) instead of full size, which the browser would
   * only shrink; the viewer asks for the full view ({@link VisionViews.full}).
   */
  viewWidth?(): number | undefined;
}

/**
 * Display widths are rounded up to a multiple of this: a sidebar a few pixels wider or narrower
 * draws (and caches) the same views.
 */
export const VIEW_WIDTH_STEP = 64;

/** The width to draw views at for a chat `width` device pixels wide (none: full size). */
export function displayWidth(width: number | undefined): number | undefined {
  if (!width || !Number.isFinite(width) || width <= 0) {
    return undefined;
  }
  return Math.max(MIN_DISPLAY_WIDTH, Math.ceil(width / VIEW_WIDTH_STEP) * VIEW_WIDTH_STEP);
}

function failureText(error: unknown, address: string): string {
  const status = (error as { status?: unknown }).status;
  const message = error instanceof Error ? error.message : String(error);
  if (status === 409) {
    return `The picture ${address} has changed since these marks were made, so its views are not shown. ${message}`;
  }
  if (status === 404 || (error instanceof Error && error.name === 'PictureNotFoundError')) {
    return `The picture ${address} is gone, so its views are not shown. ${message}`;
  }
  return `The views of ${address} could not be rendered: ${message}`;
}

/** The vision views of one conversation. */
export class VisionViews implements IDisposable {
  private readonly _fold = new VisionFold();
  private readonly _states = new Map<string, ViewsState>();
  /** Replayed calls' jobs, for their full views (the viewer) when they were drawn smaller. */
  private readonly _jobs = new Map<string, ViewJob>();
  /** Full views being fetched or fetched, by call. */
  private readonly _full = new Map<string, Promise<ReadonlyArray<ToolImage>>>();
  private readonly _workers: ViewWorkers;
  private readonly _changed = new Signal<this, string>(this);
  /** Messages already looked at, and the id of the last one (to notice a replaced transcript). */
  private _seen = 0;
  private _lastId: string | undefined;
  /**
   * The entries array and its length at the last look. The conversation changes its array in
   * place for an update or an append and replaces it otherwise, so the same array at the same
   * length means only existing messages changed (a streaming delta): nothing new to fold.
   */
  private _lookedAt: ReadonlyArray<unknown> | undefined;
  private _lookedLength = 0;
  private _abort = new AbortController();
  /** The chat got wider while views were queued: look again once the queue is empty. */
  private _widthPending = false;
  private _folds = 0;
  private readonly _requests: ViewRequests;
  private readonly _batchHost: BatchHost;
  private _isDisposed = false;

  constructor(
    private readonly _conversation: Conversation,
    private readonly _options: VisionViewsOptions
  ) {
    this._requests = new ViewRequests(new FigureClient(_options.request));
    this._batchHost = {
      shared: address => this._options.shared?.(address) ?? null,
      picture: address => pictureRequest(this._options.notebook(), address),
      width: () => displayWidth(this._options.viewWidth?.()),
      render: (...args) => this._requests.render(...args),
      ready: (job, views, width) => this._ready(job, views, width),
      failed: (job, error) => this._failed(job, error)
    };
    this._workers = new ViewWorkers(
      (batch, urgent) => drawViewBatch(batch, this._batchHost, this._abort.signal, urgent),
      () => {
        if (this._widthPending) {
          this.widthChanged();
        }
      }
    );
    _conversation.changed.connect(this._onChanged, this);
    this._onChanged();
  }

  /** Emitted with a call id when that call's state changes. */
  get changed(): ISignal<this, string> {
    return this._changed;
  }

  /** How many messages have been folded (each once; for tests and diagnostics). */
  get folds(): number {
    return this._folds;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Draw this call's views next (its card came near the chat's visible area; `visible`: into the
   * area itself). Without a call the newest queued views are drawn first: the chat opens at the
   * end of the conversation.
   */
  prioritize(callId: string, visible = false): void {
    this._workers.prioritize(callId, visible);
  }

  /**
   * Draw only the newest call's views and those of calls in the chat's visible area until
   * {@link release}: on a two-core machine every off-screen request drawn meanwhile (the figure
   * server's CPU, the answer's handling in the page) delayed what a person looks at.
   */
  hold(): void {
    this._workers.hold();
  }

  /** Draw the rest (what the chat shows first is on screen, or it waited long enough). */
  release(): void {
    this._workers.release();
  }

  /**
   * A call's views at full size (for the viewer): those shown when they are, else drawn once and
   * kept for the session.
   */
  full(callId: string): Promise<ReadonlyArray<ToolImage>> {
    const state = this.state(callId);
    const job = this._jobs.get(callId);
    if (state.kind === 'ready' && !state.views.some(view => view.shrunkFrom)) {
      return Promise.resolve(state.views);
    }
    if (!job) {
      return Promise.reject(new Error(`no views of ${callId} to draw`));
    }
    let pending = this._full.get(callId);
    if (!pending) {
      pending = this._drawFull(job);
      this._full.set(callId, pending);
      pending.catch(() => this._full.delete(callId));
    }
    return pending;
  }

  private async _drawFull(job: ViewJob): Promise<ReadonlyArray<ToolImage>> {
    const key = viewCacheKey(job);
    const cached = sessionViewCache.get(key);
    if (cached) {
      return cached;
    }
    const { address } = job.picture;
    const shared = this._batchHost.shared(address);
    const picture = shared ? { address } : this._batchHost.picture(address);
    const answer = await this._requests.render(
      job,
      job.plan.views,
      picture,
      shared,
      this._abort.signal,
      true
    );
    sessionViewCache.set(key, answer.views);
    return answer.views;
  }

  /**
   * The chat got wider: views drawn narrower than it now shows them (and than their full size)
   * are drawn again at the new width; until then the cards keep showing them. Not while views are
   * still queued or being drawn (a chat opening draws them at the width it has then): a redraw
   * queued meanwhile would go before the calls still waiting for their first views, and the
   * width is looked at again once the queue is empty.
   */
  widthChanged(): void {
    if (this._isDisposed) {
      return;
    }
    if (this._workers.busy) {
      this._widthPending = true;
      return;
    }
    this._widthPending = false;
    const width = displayWidth(this._options.viewWidth?.());
    if (!width) {
      return;
    }
    for (const [callId, job] of this._jobs) {
      const state = this._states.get(callId);
      const narrow =
        state?.kind === 'ready' &&
        state.views.some(
          view => view.shrunkFrom && view.width < Math.min(width, view.shrunkFrom.width)
        );
      if (narrow && !this._workers.has(callId)) {
        this._workers.push(job);
      }
    }
    this._workers.drain();
  }

  /** The views of a call, as the card should show them. */
  state(callId: string): ViewsState {
    return this._states.get(callId) ?? { kind: 'unknown' };
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._abort.abort();
    this._workers.stop();
    this._conversation.changed.disconnect(this._onChanged, this);
    Signal.clearData(this);
  }

  private _set(callId: string, state: ViewsState): void {
    this._states.set(callId, state);
    this._changed.emit(callId);
  }

  /** Fold the messages appended since the last change; start over if the transcript was replaced. */
  private _onChanged(): void {
    if (this._isDisposed) {
      return;
    }
    const entries = this._conversation.entries;
    if (entries === this._lookedAt && entries.length === this._lookedLength) {
      // A delta of the streaming answer: walking the whole conversation per delta made a long
      // answer in a long conversation stall the page (issue 11.9). Folding only ever reads
      // messages appended since the last look, which an in-place update cannot add.
      return;
    }
    this._lookedAt = entries;
    this._lookedLength = entries.length;
    const messages = entries.filter(isReadable);
    const prefixHolds =
      this._seen <= messages.length &&
      (this._seen === 0 || messages[this._seen - 1].id === this._lastId);
    if (!prefixHolds) {
      this._reset();
    }
    for (let i = this._seen; i < messages.length; i++) {
      this._look(messages, i);
    }
    this._seen = messages.length;
    this._lastId = messages[messages.length - 1]?.id;
    this._workers.drain();
  }

  private _reset(): void {
    this._abort.abort();
    this._abort = new AbortController();
    this._workers.clear();
    this._states.clear();
    this._jobs.clear();
    this._full.clear();
    this._widthPending = false;
    this._fold.forget('views');
    this._seen = 0;
    this._lastId = undefined;
  }

  /** A completed vision result: decide its views from the state just before it. */
  private _look(messages: readonly StoredMessage[], index: number): void {
    const message = messages[index];
    if (message.role !== 'tool' || message.status !== 'completed' || !message.picture) {
      return;
    }
    const callId = message.tool_call_id;
    const live = this._conversation.views(callId);
    this._folds += 1;
    const before = this._fold.read('views', messages.slice(0, index));
    const call = before.pending.get(callId);
    if (!call || !isVisionTool(call.name)) {
      return;
    }
    let plan: VisionPlan;
    try {
      const record =
        message.record !== undefined
          ? validateRecord(message.record, message.picture)
          : recordFor(before, message.picture.address);
      plan = planVisionCall(call.name, call.args, record, message.picture);
    } catch (error) {
      this._set(callId, { kind: 'problem', message: failureText(error, message.picture.address) });
      return;
    }
    if (!plan.views.length) {
      this._set(callId, { kind: 'none' });
    } else if (live) {
      this._set(callId, { kind: 'ready', views: live, record: plan.record });
    } else {
      this._set(callId, { kind: 'rendering' });
      const job = {
        callId,
        plan,
        picture: message.picture,
        group: viewGroup(plan, message.picture)
      };
      this._jobs.set(callId, job);
      this._workers.push(job);
    }
  }

  private _ready(job: ViewJob, views: ReadonlyArray<ToolImage>, width: number | undefined): void {
    sessionViewCache.set(viewCacheKey(job, width), views);
    this._set(job.callId, { kind: 'ready', views, record: job.plan.record });
  }

  private _failed(job: ViewJob, error: unknown): void {
    const marks = job.plan.record.marks.map(describeMark);
    const record = marks.length ? `\nMarks: ${marks.join('; ')}` : '';
    this._set(job.callId, {
      kind: 'problem',
      message: `${failureText(error, job.picture.address)}${record}`
    });
  }
}
