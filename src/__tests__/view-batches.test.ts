/**
 * Which replayed vision calls share one `render` request: only calls over the same picture
 * version with the same record (so no call ever gets views drawn from another's marks or another
 * picture), within the route's view limit, newest first; calls a person waits for go alone.
 */
import { takeViewBatch, viewGroup, ViewQueue, type ViewJob } from '../chat/view-batches';
import { emptyRecord, type VisionRecord } from '../tools/vision';
import { MAX_VIEWS_PER_REQUEST } from '../tools/wire';

const picture = { address: 'p.png', sha256: 'a'.repeat(64), width: 200, height: 150 };

function job(
  callId: string,
  options: { record?: VisionRecord; sha256?: string; views?: number } = {}
): ViewJob {
  const record = options.record ?? emptyRecord('p.png');
  const plan = {
    record,
    text: '',
    views: Array.from({ length: options.views ?? 1 }, (_, i) => ({
      kind: 'closeup' as const,
      at: `${i},${i}`
    }))
  };
  const fingerprint = { ...picture, sha256: options.sha256 ?? picture.sha256 };
  return { callId, plan, picture: fingerprint, group: viewGroup(plan, fingerprint) };
}

const ids = (jobs: ViewJob[]): string[] => jobs.map(j => j.callId);

describe('takeViewBatch', () => {
  it('draws calls of one picture version and record together, newest first, within the view limit', () => {
    const queue = Array.from({ length: 12 }, (_, i) => job(`c${i}`));
    const first = takeViewBatch(queue, () => false);
    expect(ids(first)).toEqual(['c11', 'c10', 'c9', 'c8', 'c7', 'c6', 'c5', 'c4']);
    expect(first).toHaveLength(MAX_VIEWS_PER_REQUEST);
    expect(ids(takeViewBatch(queue, () => false))).toEqual(['c3', 'c2', 'c1', 'c0']);
    expect(takeViewBatch(queue, () => false)).toEqual([]);
  });

  it('never puts calls with another record or another picture version in the same request', () => {
    const marked: VisionRecord = {
      image: 'p.png',
      marks: [{ id: 1, kind: 'point', x: 5, y: 5, r: 3, caption: '', colour: 'red' }],
      lastId: 1
    };
    const queue = [
      job('same-a'),
      job('other-record', { record: marked }),
      job('other-picture', { sha256: 'b'.repeat(64) }),
      job('same-b')
    ];
    expect(ids(takeViewBatch(queue, () => false))).toEqual(['same-b', 'same-a']);
    expect(ids(takeViewBatch(queue, () => false))).toEqual(['other-picture']);
    expect(ids(takeViewBatch(queue, () => false))).toEqual(['other-record']);
  });

  it('counts views, not calls, against the limit', () => {
    const queue = [job('a', { views: 3 }), job('b', { views: 6 }), job('c', { views: 4 })];
    // c (4) + b (6) would pass 8 views; a (3) fits.
    expect(ids(takeViewBatch(queue, () => false))).toEqual(['c', 'a']);
    expect(ids(takeViewBatch(queue, () => false))).toEqual(['b']);
  });

  it('takes a call a person waits for alone, and leaves such calls out of others’ requests', () => {
    const queue = [job('c0'), job('c1'), job('c2'), job('c3')];
    const near = new Set(['c1', 'c3']);
    expect(ids(takeViewBatch(queue, j => near.has(j.callId)))).toEqual(['c3']);
    expect(ids(takeViewBatch(queue, j => near.has(j.callId)))).toEqual(['c2', 'c0']);
    expect(ids(takeViewBatch(queue, () => false, true))).toEqual(['c1']);
  });
});

describe('ViewQueue', () => {
  const taken = (queue: ViewQueue): { ids: string[]; leads: boolean } => {
    const { batch, leads } = queue.take();
    return { ids: ids(batch), leads };
  };

  it('draws the newest call of a filled queue alone first, then shares requests', () => {
    const queue = new ViewQueue();
    ['c0', 'c1', 'c2', 'c3'].forEach(id => queue.push(job(id)));
    expect(taken(queue)).toEqual({ ids: ['c3'], leads: true });
    expect(taken(queue)).toEqual({ ids: ['c2', 'c1', 'c0'], leads: false });
    expect(queue.length).toBe(0);
    // Filled again (a replaced transcript): its newest leads again.
    queue.push(job('d0'));
    queue.push(job('d1'));
    expect(taken(queue)).toEqual({ ids: ['d1'], leads: true });
  });

  it('marks a batch urgent when it leads or a person waits for it, never a shared one', () => {
    const queue = new ViewQueue();
    ['c0', 'c1', 'c2', 'c3'].forEach(id => queue.push(job(id)));
    expect(queue.take()).toMatchObject({ leads: true, urgent: true });
    expect(queue.hasNear).toBe(false);
    queue.prioritize('c0');
    expect(queue.hasNear).toBe(true);
    const near = queue.take();
    expect({ ids: ids(near.batch), urgent: near.urgent }).toEqual({ ids: ['c0'], urgent: true });
    expect(queue.hasNear).toBe(false);
    const shared = queue.take();
    expect({ ids: ids(shared.batch), urgent: shared.urgent }).toEqual({
      ids: ['c2', 'c1'],
      urgent: false
    });
  });

  it('moves a call a person waits for to the front, alone; clear forgets it', () => {
    const queue = new ViewQueue();
    ['c0', 'c1', 'c2', 'c3'].forEach(id => queue.push(job(id)));
    queue.take();
    queue.prioritize('c0');
    expect(taken(queue)).toEqual({ ids: ['c0'], leads: false });
    expect(taken(queue)).toEqual({ ids: ['c2', 'c1'], leads: false });
    queue.push(job('e0'));
    queue.prioritize('e0');
    queue.clear();
    expect(queue.length).toBe(0);
    expect(taken(queue)).toEqual({ ids: [], leads: false });
  });

  it('held, gives only the newest call and calls in the visible area; the rest once let go', () => {
    const queue = new ViewQueue();
    ['c0', 'c1', 'c2', 'c3', 'c4'].forEach(id => queue.push(job(id)));
    expect(queue.ready(true)).toBe(true);
    const held = (): { ids: string[]; leads: boolean } => {
      const { batch, leads } = queue.take(undefined, true);
      return { ids: ids(batch), leads };
    };
    expect(held()).toEqual({ ids: ['c4'], leads: true });
    // Near the visible area is not enough while held; in it is.
    queue.prioritize('c0');
    expect(queue.ready(true)).toBe(false);
    expect(held()).toEqual({ ids: [], leads: false });
    queue.prioritize('c1', true);
    queue.prioritize('c2');
    expect(queue.hasVisible).toBe(true);
    expect(held()).toEqual({ ids: ['c1'], leads: false });
    expect(queue.ready(true)).toBe(false);
    // Let go: the near call first, alone, then the rest together.
    expect(taken(queue)).toEqual({ ids: ['c2'], leads: false });
    expect(taken(queue)).toEqual({ ids: ['c0'], leads: false });
    expect(taken(queue)).toEqual({ ids: ['c3'], leads: false });
    expect(queue.ready(false)).toBe(false);
  });

  it('held, a call queued after the leading one was taken does not lead too', () => {
    const queue = new ViewQueue();
    queue.push(job('c9'));
    expect(queue.take(undefined, true)).toMatchObject({ leads: true });
    // The chat renders an off-screen card meanwhile: its call lands in the emptied queue.
    queue.push(job('c3'));
    expect(queue.ready(true)).toBe(false);
    expect(ids(queue.take(undefined, true).batch)).toEqual([]);
    // In the visible area it may go; let go, the rest does.
    queue.push(job('c5'));
    queue.prioritize('c5', true);
    expect(ids(queue.take(undefined, true).batch)).toEqual(['c5']);
    expect(ids(queue.take().batch)).toEqual(['c3']);
    expect(queue.ready(false)).toBe(false);
  });
});
