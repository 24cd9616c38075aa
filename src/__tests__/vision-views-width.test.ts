/**
 * VisionViews draws replayed views at the chat's width (in device pixels, rounded up to a step),
 * the full view once for the viewer, and the views again only when the chat gets wider than they
 * were drawn for, after every queued call has its first views; against the real figure server.
 */
import { displayWidth, VisionViews } from '../chat/vision-views';
import {
  allSettled,
  closeUps,
  counting,
  loaded,
  settled,
  transcript,
  useFigureServer,
  visionResult
} from './helpers/vision-views';
import { assistant, call } from './helpers/transcripts';

useFigureServer();

describe("VisionViews at the chat's width", () => {
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
});
