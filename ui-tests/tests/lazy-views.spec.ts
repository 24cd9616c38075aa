/**
 * A long stored conversation (issue 11.9, issue 13 goal 4): it opens at the newest message, its
 * vision views are drawn newest (visible) first, every figure and view still arrives, and a
 * notebook closed and opened again in the same session shows its views without drawing them again.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Request } from '@playwright/test';

import {
  chat,
  dragSidebarEdge,
  openChatSidebar,
  putConversationNotebook,
  readyOrder,
  recordReadyOrder,
  saveAndCloseAll,
  SETTINGS
} from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const FIGURES = 10;
const VIEWS = 6;

/** The chat's scroll position: how far from its end, and its width. */
function scrollState(page: IJupyterLabPageFixture): Promise<{ toEnd: number; width: number }> {
  return page.evaluate(() => {
    const scroller = document.querySelector(
      '#jp-figure-chat-sidebar .jp-FigureChat-view:not(.lm-mod-hidden) .jp-FigureChat-scroller'
    ) as HTMLElement;
    return {
      toEnd: scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight,
      width: scroller.clientWidth
    };
  });
}

async function open(page: IJupyterLabPageFixture, path: string): Promise<void> {
  await page.evaluate(async p => {
    await window.jupyterapp.commands.execute('docmanager:open', { path: p });
    await window.jupyterapp.commands.execute('figure-chat:open');
  }, path);
}

test('a long conversation opens at the newest message and draws its newest views first', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/long.ipynb`;
  await putConversationNotebook(page, path, { messages: 120, figures: FIGURES, views: VIEWS });
  await openChatSidebar(page);
  await recordReadyOrder(page);
  const renders: string[] = [];
  // Render requests not answered yet.
  const pending = new Set<Request>();
  page.on('request', request => {
    if (request.url().includes('/figure-chat/render')) {
      renders.push(request.url());
      pending.add(request);
    }
  });
  page.on('requestfinished', request => pending.delete(request));
  page.on('requestfailed', request => pending.delete(request));
  await open(page, path);

  const view = chat(page);
  await expect(view.locator('.jp-FigureChat-message').last()).toBeInViewport();
  // Everything arrives, off-screen parts included.
  await expect(view.locator('.jp-FigureChat-visionView img')).toHaveCount(VIEWS, {
    timeout: 60000
  });
  await expect(view.locator('.jp-FigureChat-figure-image-mod-svg')).toHaveCount(FIGURES);
  await expect(view.locator('.jp-FigureChat-lazy')).toHaveCount(0);
  // Newest first: the chat opens at the end of the conversation, and the newest call is drawn
  // alone before the rest, which may share requests (views of one picture version and record
  // arrive together, so their order among themselves is the page's).
  const order = await readyOrder(page);
  expect(order[0]).toBe(`v${VIEWS}`);
  expect([...order].sort()).toEqual(Array.from({ length: VIEWS }, (_, i) => `v${i + 1}`));
  expect(renders.length).toBeGreaterThanOrEqual(2);
  expect(renders.length).toBeLessThanOrEqual(VIEWS);
  // Scrolled up to it, the oldest figure is there, drawn.
  const first = view.locator('.jp-FigureChat-figure-image-mod-svg').first();
  await first.scrollIntoViewIfNeeded();
  await expect(first).toBeInViewport();
  await expect
    .poll(() => first.evaluate(image => (image as HTMLImageElement).naturalWidth))
    .toBeGreaterThan(0);

  // Closed and opened again in the same session: the views come from the session's cache.
  await saveAndCloseAll(page);
  renders.length = 0;
  await open(page, path);
  await expect(view.locator('.jp-FigureChat-visionView img')).toHaveCount(VIEWS, {
    timeout: 60000
  });
  await expect(view.locator('.jp-FigureChat-message').last()).toBeInViewport();
  expect(renders).toHaveLength(0);

  // The sidebar made narrower while the reader is at the end: they stay there, and no view is
  // drawn again (nothing needs a wider drawing).
  const before = await scrollState(page);
  await dragSidebarEdge(page, 100);
  await expect.poll(async () => (await scrollState(page)).width).toBeLessThan(before.width - 50);
  await expect.poll(async () => (await scrollState(page)).toEnd).toBeLessThanOrEqual(2);
  await expect(view.locator('.jp-FigureChat-message').last()).toBeInViewport();
  // Scrolled up, with a message at the top of the visible area: made wider, the views drawn
  // narrower are drawn again at the new width, and that message stays where it was.
  const anchor = view.locator('.jp-FigureChat-entry-mod-user').nth(-4);
  const offset = (): Promise<number> =>
    anchor.evaluate(entry => {
      const scroller = entry.closest('.jp-FigureChat-scroller') as HTMLElement;
      return entry.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
    });
  await anchor.evaluate(entry => {
    const scroller = entry.closest('.jp-FigureChat-scroller') as HTMLElement;
    scroller.scrollTop += entry.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
  });
  await expect.poll(offset).toBeCloseTo(0, 0);
  await expect(view.locator('.jp-FigureChat-jump')).toBeHidden();
  await dragSidebarEdge(page, -250);
  await expect.poll(() => renders.length, { timeout: 30000 }).toBeGreaterThan(0);
  await expect.poll(() => pending.size, { timeout: 30000 }).toBe(0);
  await expect(view.locator('.jp-FigureChat-vision[data-views="rendering"]')).toHaveCount(0);
  await expect
    .poll(() =>
      view
        .locator('.jp-FigureChat-visionView img')
        .evaluateAll(images => images.every(image => (image as HTMLImageElement).complete))
    )
    .toBe(true);
  // Laid out and painted with the new views.
  await page.evaluate(
    () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))
  );
  expect(Math.abs(await offset())).toBeLessThanOrEqual(2);
  expect((await scrollState(page)).toEnd).toBeGreaterThan(100);
});

test('what the chat shows first is drawn before anything off-screen', async ({ page, tmpPath }) => {
  const path = `${tmpPath}/first.ipynb`;
  await putConversationNotebook(page, path, { messages: 120, figures: FIGURES, views: VIEWS });
  await openChatSidebar(page);
  // On the page's clock, by call and place in the card: when each figure or view image was put
  // in the chat, and when it first loaded; and when the notebook was asked for.
  const since = await page.evaluate(() => {
    const w = window as unknown as { placed: Map<string, number>; loads: Map<string, number> };
    w.placed = new Map();
    w.loads = new Map();
    const identity = (image: HTMLImageElement): string => {
      const card = image.closest<HTMLElement>('[data-call-id]');
      const index = card ? Array.from(card.querySelectorAll('img')).indexOf(image) : -1;
      return `${card?.dataset.callId ?? '?'}#${index}`;
    };
    const sidebar = document.querySelector('#jp-figure-chat-sidebar') as HTMLElement;
    new MutationObserver(() => {
      const now = performance.now();
      sidebar
        .querySelectorAll<HTMLImageElement>('img.jp-FigureChat-figure-image')
        .forEach(image => {
          const id = identity(image);
          if (!w.placed.has(id)) {
            w.placed.set(id, now);
          }
        });
    }).observe(sidebar, { childList: true, subtree: true });
    sidebar.addEventListener(
      'load',
      event => {
        const image = event.target;
        if (image instanceof HTMLImageElement && !w.loads.has(identity(image))) {
          w.loads.set(identity(image), performance.now());
        }
      },
      // Load events do not bubble: caught on their way down.
      true
    );
    return performance.now();
  });
  await open(page, path);

  const view = chat(page);
  await expect(view.locator('.jp-FigureChat-message').last()).toBeInViewport();
  await expect(view.locator('.jp-FigureChat-visionView img')).toHaveCount(VIEWS, {
    timeout: 60000
  });
  await expect(view.locator('.jp-FigureChat-figure-image-mod-svg')).toHaveCount(FIGURES);
  await expect(view.locator('.jp-FigureChat-lazy')).toHaveCount(0);
  const report = await page.evaluate(
    ({ after, newest }) => {
      const w = window as unknown as {
        placed: Map<string, number>;
        loads: Map<string, number>;
      };
      const scroller = document.querySelector(
        '#jp-figure-chat-sidebar .jp-FigureChat-scroller'
      ) as HTMLElement;
      const area = scroller.getBoundingClientRect();
      const inView = Array.from(
        scroller.querySelectorAll<HTMLImageElement>('img.jp-FigureChat-figure-image')
      ).filter(image => {
        const box = image.getBoundingClientRect();
        return box.bottom > area.top && box.top < area.bottom && box.height > 0;
      });
      const ids = inView.map(image => {
        const card = image.closest<HTMLElement>('[data-call-id]');
        const index = card ? Array.from(card.querySelectorAll('img')).indexOf(image) : -1;
        return `${card?.dataset.callId ?? '?'}#${index}`;
      });
      const viewCards = new Set(
        inView
          .map(image => image.closest<HTMLElement>('.jp-FigureChat-vision')?.dataset.callId)
          .filter(id => id !== undefined)
      );
      // When the last of what is in view had loaded.
      const shown = Math.max(...ids.map(id => w.loads.get(id) ?? Infinity));
      // Render requests: the chat fetches them in a worker, which adds a measure for each
      // (src/chat/worker-fetch.ts); the page's resource timing has those it fetched itself.
      const renders = [
        ...(performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map(entry => ({
          url: entry.name,
          start: entry.startTime
        })),
        ...performance
          .getEntriesByName('figure-chat request', 'measure')
          .map(entry => (entry as PerformanceMeasure).detail as { url: string; start: number })
      ]
        .filter(entry => entry.start >= after && entry.url.includes('/figure-chat/render'))
        .map(entry => entry.start);
      return {
        inView: ids,
        placedBefore: [...w.placed]
          .filter(([id, at]) => at < shown && !ids.includes(id))
          .map(([id]) => id),
        rendersBefore: renders.filter(at => at < shown).length,
        // Each call in view may need its own request, and the newest call's goes first whether
        // it is in view or not.
        rendersAllowed: viewCards.size + (viewCards.has(newest) ? 0 : 1),
        renders: renders.length
      };
    },
    { after: since, newest: `v${VIEWS}` }
  );
  // Something is in view, and everything was drawn.
  expect(report.inView.length).toBeGreaterThan(0);
  expect(report.renders).toBeGreaterThan(1);
  // No figure or view out of view was put in the chat before the last of those in view loaded...
  expect(report.placedBefore).toEqual([]);
  // ...and no render request went out before it but the newest call's and those in view.
  expect(report.rendersBefore).toBeLessThanOrEqual(report.rendersAllowed);
});
