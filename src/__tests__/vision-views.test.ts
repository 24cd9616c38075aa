/**
 * The VisionViews service against the real figure server (real sharp and resvg over loopback):
 * replayed views are rendered once through one queue; calls with no views (`vision_list`,
 * `vision_mark` with `view: "none"`) are complete at once; each new message is folded once however
 * many times cards read; dispose cancels the render in flight.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { Conversation } from '../chat/conversation';
import {
  CONCURRENT_RENDERS,
  displayWidth,
  VisionViews,
  type VisionViewsOptions
} from '../chat/vision-views';
import { createFigureServer } from '../server/app';
import * as transcriptModule from '../tools/transcript';
import type { StoredMessage, ToolMessage } from '../tools/transcript';
import { VisionFold } from '../tools/vision';
import { MAX_VIEWS_PER_REQUEST } from '../tools/wire';
import { closeServer, listenLoopback, postRoute } from './helpers/loopback';
import { assistant, call, result, user } from './helpers/transcripts';

let root: string;
let server: Server;
let base: string;
let picture: { address: string; sha256: string; width: number; height: number };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-views-'));
  const png = await sharp({
    create: { width: 200, height: 150, channels: 3, background: { r: 90, g: 140, b: 200 } }
  })
    .png()
    .toBuffer();
  writeFileSync(join(root, 'p.png'), png);
  picture = {
    address: 'p.png',
    sha256: createHash('sha256').update(png).digest('hex'),
    width: 200,
    height: 150
  };
  server = createFigureServer({ root, hideHidden: true });
  base = await listenLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
  rmSync(root, { recursive: true, force: true });
});

/** POST to the real figure server, recording every request's signal. */
function client(signals: AbortSignal[] = []): VisionViewsOptions {
  return {
    notebook: () => null,
    request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T> {
      signals.push(signal);
      return postRoute<T>(base, route, body, signal);
    }
  };
}

function visionResult(id: string, callId: string): ToolMessage {
  return { ...result(id, callId, 'ok'), picture };
}

function transcript(): StoredMessage[] {
  return [
    user('u1', 'mark it'),
    assistant('a1', '', [
      call('c1', 'vision_mark', { image: 'p.png', marks: [{ at: '20,20,80,60', colour: 'red' }] })
    ]),
    visionResult('r1', 'c1'),
    assistant('a2', '', [call('c2', 'vision_list', {})]),
    visionResult('r2', 'c2'),
    assistant('a3', '', [call('c3', 'vision_mark', { marks: [{ at: '5,5' }], view: 'none' })]),
    visionResult('r3', 'c3')
  ];
}

function loaded(messages: StoredMessage[]): Conversation {
  const conversation = new Conversation();
  conversation.load({ version: 1, messages });
  return conversation;
}

function settled(views: VisionViews, callId: string): Promise<void> {
  return new Promise(resolve => {
    const check = (): void => {
      const kind = views.state(callId).kind;
      if (kind !== 'rendering' && kind !== 'unknown') {
        views.changed.disconnect(check);
        resolve();
      }
    };
    views.changed.connect(check);
    check();
  });
}

/** The real client, recording each render request's body and the most requests in flight at once. */
function counting(): {
  options: VisionViewsOptions;
  bodies: Array<{ views: unknown[]; record: unknown }>;
  peak: () => number;
  /** Requests in flight when each request was made. */
  busy: number[];
} {
  const inner = client();
  const bodies: Array<{ views: unknown[]; record: unknown }> = [];
  const busy: number[] = [];
  let inFlight = 0;
  let peak = 0;
  return {
    bodies,
    busy,
    peak: () => peak,
    options: {
      ...inner,
      async request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T> {
        bodies.push(body as { views: unknown[]; record: unknown });
        busy.push(inFlight);
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          return await inner.request<T>(route, body, signal);
        } finally {
          inFlight -= 1;
        }
      }
    }
  };
}

/** A marked picture, then `count` close-ups at distinct points, each its own call. */
function closeUps(count: number): StoredMessage[] {
  const messages = transcript().slice(0, 3);
  for (let i = 0; i < count; i++) {
    messages.push(
      assistant(`s${i}`, '', [
        call(`show${i}`, 'vision_show', { at: [`${10 + i * 15},${20 + i * 10}`] })
      ]),
      visionResult(`rs${i}`, `show${i}`)
    );
  }
  return messages;
}

function allSettled(views: VisionViews, callIds: string[]): Promise<unknown> {
  return Promise.all(callIds.map(id => settled(views, id)));
}

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
        ? { ...message, picture: { ...picture, sha256: 'b'.repeat(64) } }
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

  it("draws replayed views at the chat's width, and the full view once for the viewer", async () => {
    const { options, bodies } = counting();
    // Views no other test drew (the session's cache would hold their full views).
    const messages = transcript().slice(0, 1);
    messages.push(
      assistant('w1', '', [
        call('c1', 'vision_mark', { image: 'p.png', marks: [{ at: '33,44', colour: 'cyan' }] })
      ]),
      visionResult('rw1', 'c1'),
      assistant('w2', '', [call('show0', 'vision_show', { at: ['123,45'] })]),
      visionResult('rw2', 'show0')
    );
    const conversation = loaded(messages);
    // A chat 100 device pixels wide: views are drawn 128 wide (rounded up to the step).
    const views = new VisionViews(conversation, { ...options, viewWidth: () => 100 });
    await allSettled(views, ['c1', 'show0']);
    expect(bodies.map(body => (body as { width?: number }).width)).toEqual(bodies.map(() => 128));
    /** A base64 PNG's width, from its header. */
    const pngWidth = (png: string): number => Buffer.from(png, 'base64').readUInt32BE(16);
    for (const callId of ['c1', 'show0']) {
      const state = views.state(callId);
      if (state.kind !== 'ready') {
        throw new Error(`${callId} is ${state.kind}`);
      }
      const [view] = state.views;
      expect([view.width, pngWidth(view.png)]).toEqual([128, 128]);
      expect(view.shrunkFrom?.width).toBeGreaterThan(128);
      // The viewer's full view: drawn once, without a width, the size the small one says.
      const requests = bodies.length;
      const [full] = await views.full(callId);
      expect(full.shrunkFrom).toBeUndefined();
      expect([full.width, full.height]).toEqual([view.shrunkFrom?.width, view.shrunkFrom?.height]);
      expect(pngWidth(full.png)).toBe(full.width);
      expect(full.caption).toBe(view.caption);
      expect(bodies).toHaveLength(requests + 1);
      expect((bodies[requests] as { width?: number }).width).toBeUndefined();
      expect(await views.full(callId)).toEqual([full]);
      expect(bodies).toHaveLength(requests + 1);
    }
    views.dispose();
    conversation.dispose();
  });

  it('draws views again when the chat gets wider than they were drawn for, and only then', async () => {
    const { options, bodies } = counting();
    const conversation = loaded(closeUps(1));
    let width = 100;
    const views = new VisionViews(conversation, { ...options, viewWidth: () => width });
    await allSettled(views, ['c1', 'show0']);
    const drawn = (callId: string): number => {
      const state = views.state(callId);
      return state.kind === 'ready' ? state.views[0].width : 0;
    };
    expect([drawn('c1'), drawn('show0')]).toEqual([128, 128]);
    const requests = bodies.length;
    width = 120;
    views.widthChanged();
    expect(bodies).toHaveLength(requests);
    width = 300;
    views.widthChanged();
    await new Promise<void>(resolve => {
      const check = (): void => {
        if (drawn('c1') > 128 && drawn('show0') > 128) {
          views.changed.disconnect(check);
          resolve();
        }
      };
      views.changed.connect(check);
    });
    expect(bodies.slice(requests).map(body => (body as { width?: number }).width)).toEqual(
      bodies.slice(requests).map(() => 320)
    );
    // The map is narrower than that: now full size; the close-up is drawn at the new width.
    const map = views.state('c1');
    expect(map.kind === 'ready' && map.views[0].shrunkFrom).toBe(undefined);
    expect(drawn('show0')).toBe(320);
    views.dispose();
    conversation.dispose();
  });

  it('draws views again for a wider chat only once every queued call has its views', async () => {
    const { options, bodies } = counting();
    const conversation = loaded(closeUps(12));
    let width = 100;
    const views = new VisionViews(conversation, { ...options, viewWidth: () => width });
    const drawn = (callId: string): number => {
      const state = views.state(callId);
      return state.kind === 'ready' ? state.views[0].width : 0;
    };
    // The newest call is drawn first, alone; the others are still queued or being drawn when the
    // chat gets wider (a sidebar settling on open, or a person widening it).
    await settled(views, 'show11');
    expect(drawn('show11')).toBe(128);
    expect(views.state('c1').kind).toBe('rendering');
    width = 300;
    views.widthChanged();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('show11 was never drawn again')), 10000);
      const check = (): void => {
        if (drawn('show11') === 320) {
          clearTimeout(timer);
          views.changed.disconnect(check);
          resolve();
        }
      };
      views.changed.connect(check);
    });
    // Asked for again last: after every call still waiting for its first views, never before.
    const asks = (body: { views: unknown[] }, at: string): boolean =>
      JSON.stringify(body.views).includes(`"${at}"`);
    const again = bodies.map((body, i) => (asks(body, '175,130') ? i : -1)).filter(i => i >= 0);
    expect(again).toEqual([0, bodies.length - 1]);
    for (let i = 0; i < 11; i++) {
      expect(views.state(`show${i}`).kind).toBe('ready');
    }
    views.dispose();
    conversation.dispose();
  });

  it('asks for full views when the chat has no width (hidden), and never below the minimum', () => {
    expect(displayWidth(undefined)).toBeUndefined();
    expect(displayWidth(0)).toBeUndefined();
    expect(displayWidth(Number.NaN)).toBeUndefined();
    expect(displayWidth(1)).toBe(64);
    expect(displayWidth(640)).toBe(640);
    expect(displayWidth(641)).toBe(704);
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
