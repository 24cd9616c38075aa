/**
 * Which queued vision calls are drawn by one `render` request. A reopened conversation queues
 * every replayed call's views; one request per call made the chat lay itself out again for each
 * answer (20 views: about 2.7 s of layout on a loaded machine) and paid the request's overhead
 * each time. Calls over the same picture version with the same record can share a request (the
 * route draws up to {@link MAX_VIEWS_PER_REQUEST} views of one record), and their answer arrives
 * as one change. Calls a person is waiting for are drawn alone, first.
 */
import type { PictureFingerprint } from '../tools/transcript';
import type { VisionPlan } from '../tools/vision';
import { MAX_VIEWS_PER_REQUEST } from '../tools/wire';

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
 * Take the next request's calls from the end of the queue (the newest, or the one a card asked
 * for, is last). The last call is taken by itself when `solo` or when a person waits for it
 * (`near`); otherwise queued calls of its group join it, newest first, except those a person
 * waits for, while the request stays within {@link MAX_VIEWS_PER_REQUEST} views.
 */
export function takeViewBatch(
  queue: ViewJob[],
  near: (job: ViewJob) => boolean,
  solo = false
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
  for (let i = queue.length - 1; i >= 0 && views < MAX_VIEWS_PER_REQUEST; i--) {
    const job = queue[i];
    const more = job.plan.views.length;
    if (job.group === first.group && views + more <= MAX_VIEWS_PER_REQUEST && !near(job)) {
      batch.push(job);
      views += more;
      queue.splice(i, 1);
    }
  }
  return batch;
}
