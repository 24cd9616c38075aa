/**
 * The VisionViews service against the real figure server (real sharp and resvg over loopback):
 * replayed views are rendered once through one queue; calls with no views (`vision_list`,
 * `vision_mark` with `view: "none"`) are complete at once; each new message is folded once however
 * many times cards read; dispose cancels the render in flight.
 */
import { Conversation } from '../chat/conversation';
import { CONCURRENT_RENDERS, VisionViews } from '../chat/vision-views';
import * as transcriptModule from '../tools/transcript';
import type { StoredMessage } from '../tools/transcript';
import { VisionFold } from '../tools/vision';
import { MAX_VIEWS_PER_REQUEST } from '../tools/wire';
import {
  allSettled,
  client,
  closeUps,
  counting,
  loaded,
  servedPicture,
  settled,
  transcript,
  useFigureServer,
  visionResult
} from './helpers/vision-views';
import { assistant, call, user } from './helpers/transcripts';

useFigureServer();

describe('VisionViews', () => {
  it('renders replayed views and completes calls that have none', async () => {
    const conversation = loaded(transcript());
    const views = new VisionViews(conversation, client());
    expect(views.state('c1').kind).toBe('rendering');
    // vision_list and view "none" never wait for a render.
    expect(views.state('c2').kind).toBe('none');
    expect(views.state('c3').kind).toBe('none');
    await settled(views, 'c1');
    const state = views.state('c1');
    expect(state.kind).toBe('ready');
    if (state.kind === 'ready') {
      expect(state.views).toHaveLength(1);
      expect(Buffer.from(state.views[0].png, 'base64').subarray(1, 4).toString()).toBe('PNG');
    }
    views.dispose();
    conversation.dispose();
  });

  it('draws replayed calls of one picture and record in shared requests, two at a time, the newest alone first', async () => {
    const count = 12;
    const { options, bodies, peak, busy } = counting();
    const conversation = loaded(closeUps(count));
    const views = new VisionViews(conversation, options);
    const ids = ['c1', ...Array.from({ length: count }, (_, i) => `show${i}`)];
    await allSettled(views, ids);
    // Each call's own view, whichever request drew it: the caption names its own point.
    for (let i = 0; i < count; i++) {
      const state = views.state(`show${i}`);
      expect(state.kind).toBe('ready');
      if (state.kind === 'ready') {
        expect(state.views).toHaveLength(1);
        expect(state.views[0].caption).toContain(`at ${10 + i * 15},${20 + i * 10}`);
      }
    }
    // The newest call first, alone (the chat opens at the end); then batches, not 13 requests.
    expect(bodies[0].views).toEqual([
      { kind: 'closeup', at: `${10 + (count - 1) * 15},${20 + (count - 1) * 10}` }
    ]);
    // ...with the figure server to itself: the next request waits for its answer.
    expect(busy[1]).toBe(0);
    expect(bodies.length).toBeLessThanOrEqual(1 + Math.ceil(ids.length / MAX_VIEWS_PER_REQUEST));
    expect(bodies.every(body => body.views.length <= MAX_VIEWS_PER_REQUEST)).toBe(true);
    expect(peak()).toBe(CONCURRENT_RENDERS);
    views.dispose();
    conversation.dispose();
  });

  it('held (a chat opening), draws the newest call and calls in view, and the rest only once let go', async () => {
    const count = 6;
    const { options, bodies } = counting();
    const conversation = loaded(closeUps(count));
    const views = new VisionViews(conversation, options);
    views.hold();
    // The chat found show1 in its visible area, show0 only near it.
    views.prioritize('show0');
    views.prioritize('show1', true);
    await allSettled(views, [`show${count - 1}`, 'show1']);
    // Every worker has looked at the queue again by now (a turn of the event loop).
    await new Promise(resolve => setImmediate(resolve));
    expect(bodies.map(body => body.views)).toEqual([
      [{ kind: 'closeup', at: `${10 + (count - 1) * 15},${20 + (count - 1) * 10}` }],
      [{ kind: 'closeup', at: '25,30' }]
    ]);
    for (const id of ['c1', 'show0', 'show2', 'show3', 'show4']) {
      expect(views.state(id).kind).toBe('rendering');
    }
    views.release();
    await allSettled(views, ['c1', ...Array.from({ length: count }, (_, i) => `show${i}`)]);
    // The near call first, alone, then the rest.
    expect(bodies[2].views).toEqual([{ kind: 'closeup', at: '10,20' }]);
    expect(views.state('show3').kind).toBe('ready');
    views.dispose();
    conversation.dispose();
  });

  it('draws a call scrolled into view at once, in one more request that the figure server draws first', async () => {
    // More close-ups than the newest call and two full requests draw, all within the picture.
    const count = 1 + 3 * MAX_VIEWS_PER_REQUEST;
    const messages = transcript().slice(0, 3);
    for (let i = 0; i < count; i++) {
      const at = `${10 + (i % 12) * 15},${20 + Math.floor(i / 12) * 40}`;
      messages.push(
        assistant(`s${i}`, '', [call(`show${i}`, 'vision_show', { at: [at] })]),
        visionResult(`rs${i}`, `show${i}`)
      );
    }
    const { options, bodies, busy } = counting();
    const opened: { views?: VisionViews } = {};
    const request = options.request;
    options.request = <T>(route: string, body: unknown, signal: AbortSignal): Promise<T> => {
      const answer = request<T>(route, body, signal);
      // Both requests draw off-screen cards (the newest call's came first): the oldest close-up
      // comes into view.
      if (bodies.length === 1 + CONCURRENT_RENDERS) {
        opened.views?.prioritize('show0', true);
      }
      return answer;
    };
    const conversation = loaded(messages);
    const views = new VisionViews(conversation, options);
    opened.views = views;
    const ids = ['c1', ...Array.from({ length: count }, (_, i) => `show${i}`)];
    await allSettled(views, ids);
    const visible = (body: object): boolean => (body as { visible?: boolean }).visible === true;
    // The newest call leads (what the chat shows first): the figure server draws it first.
    expect(visible(bodies[0])).toBe(true);
    // The call in view went at once, beside the two requests in flight, alone and marked.
    const at = 1 + CONCURRENT_RENDERS;
    expect(bodies[at].views).toEqual([{ kind: 'closeup', at: '10,20' }]);
    expect(visible(bodies[at])).toBe(true);
    expect(busy[at]).toBe(CONCURRENT_RENDERS);
    // Off-screen batches are not marked, and the extra request was not kept for them.
    expect(bodies.filter((body, i) => i !== 0 && i !== at).some(visible)).toBe(false);
    expect(busy.slice(at + 1).every(n => n <= CONCURRENT_RENDERS)).toBe(true);
    views.dispose();
    conversation.dispose();
  });

  it('never draws a call with another call’s record, however the requests are shared', async () => {
    const { options, bodies } = counting();
    const messages = [
      ...transcript().slice(0, 3),
      assistant('a4', '', [call('before', 'vision_show', { at: ['#1'] })]),
      visionResult('r4', 'before'),
      assistant('a5', '', [call('move', 'vision_update', { ops: [{ mark: 1, at: '150,100' }] })]),
      visionResult('r5', 'move'),
      assistant('a6', '', [call('after', 'vision_show', { at: ['#1'] })]),
      visionResult('r6', 'after'),
      assistant('a7', '', [call('after2', 'vision_show', { at: ['#1', '5,5'] })]),
      visionResult('r7', 'after2')
    ];
    const conversation = loaded(messages);
    const views = new VisionViews(conversation, options);
    await allSettled(views, ['c1', 'before', 'move', 'after', 'after2']);
    const region = (callId: string): number[] => {
      const state = views.state(callId);
      const match =
        state.kind === 'ready'
          ? /region (\d+),(\d+),(\d+),(\d+)/.exec(state.views[0].caption)
          : null;
      return match ? match.slice(1).map(Number) : [];
    };
    const [bx0, by0, bx1, by1] = region('before');
    const [ax0, ay0, ax1, ay1] = region('after');
    // The box was at 20,20–80,60, then moved to 150,100: each close-up shows its own place.
    expect(bx0 <= 20 && by0 <= 20 && bx1 >= 80 && by1 >= 60).toBe(true);
    expect(ax0 <= 150 && ay0 <= 100 && ax1 > 150 && ay1 > 100).toBe(true);
    // And every request drew views of exactly one record.
    for (const body of bodies) {
      const state = [...['c1', 'before', 'move', 'after', 'after2']]
        .map(id => views.state(id))
        .filter(
          s => s.kind === 'ready' && JSON.stringify(s.record) === JSON.stringify(body.record)
        );
      expect(state.length).toBeGreaterThan(0);
    }
    views.dispose();
    conversation.dispose();
  });

  it('reports a changed picture with the text record', async () => {
    const messages = transcript().map(message =>
      message.role === 'tool'
        ? { ...message, picture: { ...servedPicture(), sha256: 'b'.repeat(64) } }
        : message
    );
    const conversation = loaded(messages);
    const views = new VisionViews(conversation, client());
    await settled(views, 'c1');
    const state = views.state('c1');
    expect(state.kind === 'problem' && state.message).toMatch(/has changed.*Marks: #1 box/s);
    views.dispose();
    conversation.dispose();
  });

  it('folds each new vision result once, however often cards read', () => {
    const read = jest.spyOn(VisionFold.prototype, 'read');
    const conversation = new Conversation();
    const live = client();
    const views = new VisionViews(conversation, live);
    for (const message of transcript()) {
      if (message.role === 'tool') {
        // The live call brings its views: nothing is queued for a render.
        conversation.setViews(message.tool_call_id, []);
      }
      conversation.append(message);
      for (let card = 0; card < 10; card++) {
        views.state('c1');
        views.state('c2');
      }
    }
    // Streaming updates of the last message fold nothing new.
    conversation.update('r3', { content: 'ok!' });
    expect(read).toHaveBeenCalledTimes(3);
    expect(views.folds).toBe(3);
    read.mockRestore();
    views.dispose();
    conversation.dispose();
  });

  it('walks nothing per streamed delta, however long the conversation (issue 11.9)', () => {
    const messages: StoredMessage[] = [];
    for (let i = 0; i < 500; i++) {
      messages.push(user(`u${i}`, `question ${i}`), assistant(`a${i}`, `answer ${i}`));
    }
    const conversation = loaded([...messages, ...transcript()]);
    const views = new VisionViews(conversation, client());
    conversation.append(user('uLast', 'and now a long answer'));
    conversation.append(assistant('aLast', '', [], 'interrupted'));
    const readable = jest.spyOn(transcriptModule, 'isReadable');
    let text = '';
    for (let delta = 0; delta < 200; delta++) {
      text += 'x';
      conversation.update('aLast', { content: text });
    }
    // The old code filtered all 1,009 entries on each of the 200 deltas.
    expect(readable).not.toHaveBeenCalled();
    readable.mockRestore();
    // A vision result appended after the stream is still folded, once.
    const folded = views.folds;
    conversation.update('aLast', {
      status: 'completed',
      tool_calls: [
        call('c9', 'vision_mark', { image: 'p.png', marks: [{ at: '1,1' }], view: 'none' })
      ]
    });
    conversation.append(visionResult('r9', 'c9'));
    expect(views.folds).toBe(folded + 1);
    expect(views.state('c9').kind).toBe('none');
    views.dispose();
    conversation.dispose();
  });

  it('cancels the render in flight on dispose and reports nothing after', async () => {
    const signals: AbortSignal[] = [];
    const conversation = loaded(transcript());
    const views = new VisionViews(conversation, client(signals));
    const after: string[] = [];
    expect(signals).toHaveLength(1);
    views.dispose();
    views.changed.connect((_, callId) => after.push(callId));
    expect(signals[0].aborted).toBe(true);
    await new Promise(resolve => setTimeout(resolve, 200));
    expect(after).toEqual([]);
    expect(views.state('c1').kind).toBe('rendering');
    conversation.dispose();
  });
});
