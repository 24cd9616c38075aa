/**
 * The render queue's visible lane: a view a person is looking at (a `render` request with
 * `visible: true`) goes before renders already queued for off-screen cards, in the queue itself and
 * through the real route (real sharp and resvg).
 */
import sharp from 'sharp';

import type { RouteContext } from '../server/http/http';
import { clearRenderCaches, RENDER_CONCURRENCY } from '../server/render/render';
import { Semaphore } from '../server/render/queue';
import { renderRoute } from '../server/render/route';
import { emptyRecord } from '../tools/vision';

describe('Semaphore lanes', () => {
  it('gives a freed slot to a visible task queued after background ones', async () => {
    const queue = new Semaphore(1);
    const started: string[] = [];
    let unblock = (): void => undefined;
    const blocker = queue.use(() => new Promise<void>(resolve => (unblock = resolve)));
    const task = (name: string) => async (): Promise<void> => {
      started.push(name);
    };
    const queued = [
      queue.use(task('background 1')),
      queue.use(task('background 2'), 'background'),
      queue.use(task('visible'), 'visible')
    ];
    unblock();
    await Promise.all([blocker, ...queued]);
    expect(started).toEqual(['visible', 'background 1', 'background 2']);
    expect(queue.idle).toBe(true);
  });

  it('keeps each lane in the order it was queued', async () => {
    const queue = new Semaphore(1);
    const started: string[] = [];
    let unblock = (): void => undefined;
    const blocker = queue.use(() => new Promise<void>(resolve => (unblock = resolve)));
    const queued = ['b1', 'v1', 'b2', 'v2'].map(name =>
      queue.use(
        async () => {
          started.push(name);
        },
        name.startsWith('v') ? 'visible' : 'background'
      )
    );
    unblock();
    await Promise.all([blocker, ...queued]);
    expect(started).toEqual(['v1', 'v2', 'b1', 'b2']);
  });
});

describe('render route, visible requests', () => {
  const ctx: RouteContext = {
    root: '/nonexistent',
    hideHidden: true,
    signal: new AbortController().signal
  };
  const address = 'cell:lane/0';

  it('draws a visible request before off-screen requests queued ahead of it', async () => {
    clearRenderCaches();
    const png = await sharp({
      create: { width: 400, height: 300, channels: 3, background: { r: 70, g: 110, b: 160 } }
    })
      .png()
      .toBuffer();
    const data = png.toString('base64');
    const request = (at: string, visible?: boolean): Record<string, unknown> => ({
      address,
      data,
      views: [{ kind: 'closeup', at }],
      record: emptyRecord(address),
      answer: 'binary',
      ...(visible === undefined ? {} : { visible })
    });
    // The picture held once, so every request below reaches the render queue in the order made.
    await renderRoute(request('10,10'), ctx);
    const finished: string[] = [];
    const send = (name: string, at: string, visible?: boolean): Promise<void> =>
      renderRoute(request(at, visible), ctx).then(() => {
        finished.push(name);
      });
    // Enough off-screen requests to fill every slot and queue three more behind them.
    const background = Array.from({ length: RENDER_CONCURRENCY + 3 }, (_, i) =>
      send(`background ${i}`, `${40 + i * 30},${50 + i * 20}`, i % 2 ? false : undefined)
    );
    const visible = send('visible', '300,200', true);
    await Promise.all([...background, visible]);
    // The visible view took the first freed slot: it was done before the last two queued
    // background views had even started.
    const at = finished.indexOf('visible');
    expect(at).toBeLessThan(finished.indexOf(`background ${RENDER_CONCURRENCY + 1}`));
    expect(at).toBeLessThan(finished.indexOf(`background ${RENDER_CONCURRENCY + 2}`));
  });
});
