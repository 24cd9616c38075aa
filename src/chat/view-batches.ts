/**
 * Which queued vision calls are drawn by one `render` request, and drawing one such batch. A
 * reopened conversation queues every replayed call's views; one request per call made the chat lay
 * itself out again for each answer (20 views: about 2.7 s of layout on a loaded machine) and paid
 * the request's overhead each time. Calls over the same picture version with the same record can
 * share a request (the route draws up to {@link MAX_VIEWS_PER_REQUEST} views of one record), and
 * their answer arrives as one change. Calls a person is waiting for are drawn alone, first.
 */
import type { SharedVisionRecord } from '../tools/host';
import type { ToolImage } from '../tools/registry';
import type { PictureFingerprint } from '../tools/transcript';
import type { ViewSpec, VisionPlan } from '../tools/vision';
import { MAX_VIEWS_PER_REQUEST, type RenderAnswer } from '../tools/wire';
import type { PictureRequest } from './tools/pictures';
import { pictureMatches, sessionViewCache, ViewCache } from './view-cache';

/** One replayed vision call whose views must be drawn. */
export interface ViewJob {
  readonly callId: string;
  readonly plan: VisionPlan;
  readonly picture: PictureFingerprint;
  /** Equal for calls a request can draw together: the same picture version and record. */
  readonly group: string;
}

/** The group of a call: what one request's views must share. */
export function viewGroup(plan: VisionPlan, picture: PictureFingerprint): string {
  return JSON.stringify([picture.address, picture.sha256, plan.record]);
}

/**
 * What determines a call's view pixels: the picture's fingerprint, the record, the view specs, and
 * the width they were drawn for display at (none: full size).
 */
export function viewCacheKey(job: ViewJob, width?: number): string {
  return ViewCache.key(job.picture.sha256, job.plan.record, job.plan.views, width);
}

/**
 * Take the next request's calls from the end of the queue (the newest, or the one a card asked
 * for, is last). The last call is taken by itself when `solo` or when a person waits for it
 * (`near`); otherwise queued calls of its group join it, newest first, except those a person
 * waits for, while the request stays within `limit` views.
 */
export function takeViewBatch(
  queue: ViewJob[],
  near: (job: ViewJob) => boolean,
  solo = false,
  limit = MAX_VIEWS_PER_REQUEST
): ViewJob[] {
  const first = queue.pop();
  if (!first) {
    return [];
  }
  const batch = [first];
  if (solo || near(first)) {
    return batch;
  }
  let views = first.plan.views.length;
  for (let i = queue.length - 1; i >= 0 && views < limit; i--) {
    const job = queue[i];
    const more = job.plan.views.length;
    if (job.group === first.group && views + more <= limit && !near(job)) {
      batch.push(job);
      views += more;
      queue.splice(i, 1);
    }
  }
  return batch;
}

/**
 * The queue of calls whose views must be drawn, newest (or prioritized) last. The newest call is
 * drawn first, alone: the chat opens at the end, so its views are the ones in view. While the
 * queue is held (a chat opening: what it shows first is being drawn), only that newest call and
 * calls in the chat's visible area are taken; the rest wait for {@link ViewQueue.take} without it.
 */
export class ViewQueue {
  private readonly _jobs: ViewJob[] = [];
  /** Calls whose views a person is waiting for (near the visible area): each drawn alone. */
  private readonly _near = new Set<string>();
  /** Of those, the calls in the visible area itself: the only ones drawn while held. */
  private readonly _visible = new Set<string>();
  /** Set when an empty queue gets a job: the next batch is that newest call alone. */
  private _leadNext = false;
  /**
   * Whether a leading call was taken while held. A call queued after it into the emptied queue
   * does not lead again until let go: while a chat opens, cards are queued as they render, and
   * when the newest call's views came back fast (a warm figure server, a quick transport) an
   * off-screen call queued next went out before the visible area had loaded.
   */
  private _ledWhileHeld = false;

  get length(): number {
    return this._jobs.length;
  }

  /** Whether a call is queued. */
  has(callId: string): boolean {
    return this._jobs.some(job => job.callId === callId);
  }

  /** Whether a call in the chat's visible area is queued. */
  get hasVisible(): boolean {
    return this._jobs.some(job => this._visible.has(job.callId));
  }

  /** Whether a call a person waits for (near or in the visible area) is queued. */
  get hasNear(): boolean {
    return this._jobs.some(job => this._near.has(job.callId));
  }

  /** Whether {@link ViewQueue.take} with this `held` would give a batch. */
  ready(held: boolean): boolean {
    return held ? this._leads(true) || this.hasVisible : this._jobs.length > 0;
  }

  /** Whether the next batch is a leading call (alone, allowed while held). */
  private _leads(held: boolean): boolean {
    return this._leadNext && !(held && this._ledWhileHeld);
  }

  push(job: ViewJob): void {
    if (!this._jobs.length) {
      this._leadNext = true;
    }
    this._jobs.push(job);
  }

  /**
   * Draw this call's views next, alone (its card came near the chat's visible area; `visible`:
   * into the area itself).
   */
  prioritize(callId: string, visible = false): void {
    const at = this._jobs.findIndex(job => job.callId === callId);
    if (at >= 0) {
      this._near.add(callId);
      if (visible) {
        this._visible.add(callId);
      }
      this._jobs.push(...this._jobs.splice(at, 1));
    }
  }

  /**
   * The next request's calls: alone when they lead or a person waits for them, else in a group.
   * `held`: only the leading call or a call in the visible area, else none. `urgent`: the batch
   * leads or a person waits for it (its request asks the figure server to draw it first).
   */
  take(
    limit = MAX_VIEWS_PER_REQUEST,
    held = false
  ): { batch: ViewJob[]; leads: boolean; urgent: boolean } {
    if (!held) {
      this._ledWhileHeld = false;
    }
    const leads = this._leads(held);
    if (held && !leads) {
      let at = this._jobs.length - 1;
      while (at >= 0 && !this._visible.has(this._jobs[at].callId)) {
        at -= 1;
      }
      if (at < 0) {
        return { batch: [], leads: false, urgent: false };
      }
      this._jobs.push(...this._jobs.splice(at, 1));
    }
    const batch = takeViewBatch(this._jobs, job => this._near.has(job.callId), leads, limit);
    const waitedFor = batch.some(job => this._near.has(job.callId));
    if (batch.length) {
      this._leadNext = false;
      this._ledWhileHeld ||= held && leads;
    }
    batch.forEach(job => {
      this._near.delete(job.callId);
      this._visible.delete(job.callId);
    });
    const led = leads && batch.length > 0;
    return { batch, leads: led, urgent: led || waitedFor };
  }

  clear(): void {
    this._jobs.length = 0;
    this._near.clear();
    this._visible.clear();
    this._leadNext = false;
    this._ledWhileHeld = false;
  }
}

/** What drawing a batch needs from the views service. */
export interface BatchHost {
  /** The shared record of a Vision output's picture, whose bytes its widget's kernel holds. */
  shared(address: string): SharedVisionRecord | null;
  /** A notebook picture's request (its bytes read from the notebook), or a workspace path's. */
  picture(address: string): PictureRequest;
  /** The width views are drawn at for display (device pixels), or undefined for full size. */
  width(): number | undefined;
  /** Draw views of one picture and record at the figure server (`visible`: before others). */
  render(
    job: ViewJob,
    views: readonly ViewSpec[],
    picture: PictureRequest,
    shared: SharedVisionRecord | null,
    signal: AbortSignal,
    visible: boolean,
    width: number | undefined
  ): Promise<RenderAnswer>;
  ready(job: ViewJob, views: ReadonlyArray<ToolImage>, width: number | undefined): void;
  failed(job: ViewJob, error: unknown): void;
}

/**
 * Draw a batch (one picture version and record): from the session cache, else one request. A
 * call's views refused (400) make each call of the batch go alone, so the others still show.
 * `urgent`: a person is looking at (or is about to see) these views.
 */
export async function drawViewBatch(
  batch: readonly ViewJob[],
  host: BatchHost,
  signal: AbortSignal,
  urgent = false
): Promise<void> {
  const { address, sha256 } = batch[0].picture;
  let todo = batch;
  try {
    const shared = host.shared(address);
    // Read once per request: walking the notebook's cells for the bytes is not free.
    const picture: PictureRequest = shared ? { address } : host.picture(address);
    // Drawn earlier in this browser session (the notebook was closed and opened again)? Only
    // notebook pictures: their bytes are here to check; a file is checked by the server.
    const width = host.width();
    const keys = batch.map(job => viewCacheKey(job, width));
    if (
      picture.data !== undefined &&
      keys.some(key => sessionViewCache.has(key)) &&
      (await pictureMatches(picture.data, sha256))
    ) {
      if (signal.aborted) {
        return;
      }
      todo = batch.filter((job, i) => {
        const cached = sessionViewCache.get(keys[i]);
        if (cached) {
          host.ready(job, cached, width);
        }
        return !cached;
      });
    }
    if (!todo.length) {
      return;
    }
    const views = todo.flatMap(job => job.plan.views);
    const answer = await host.render(todo[0], views, picture, shared, signal, urgent, width);
    if (answer.views.length !== views.length) {
      throw new Error(`the figure server drew ${answer.views.length} of ${views.length} views`);
    }
    let at = 0;
    for (const job of todo) {
      if (signal.aborted) {
        return;
      }
      const count = job.plan.views.length;
      host.ready(job, answer.views.slice(at, at + count), width);
      at += count;
    }
  } catch (error) {
    if (signal.aborted) {
      return;
    }
    if (todo.length > 1 && (error as { status?: unknown }).status === 400) {
      for (const job of todo) {
        await drawViewBatch([job], host, signal, urgent);
      }
      return;
    }
    todo.forEach(job => host.failed(job, error));
  }
}
