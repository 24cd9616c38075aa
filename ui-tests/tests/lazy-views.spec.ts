/**
 * A long stored conversation (issue 11.9, issue 13 goal 4): it opens at the newest message, its
 * vision views are drawn newest (visible) first, every figure and view still arrives, and a
 * notebook closed and opened again in the same session shows its views without drawing them again.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import { chat, openChat, putConversationNotebook, saveAndCloseAll, SETTINGS } from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const FIGURES = 10;
const VIEWS = 6;

/** Record, in the page, the order in which vision cards first show drawn views. */
async function recordReadyOrder(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { readyOrder: string[] };
    w.readyOrder = [];
    const sidebar = document.querySelector('#jp-figure-chat-sidebar') as HTMLElement;
    new MutationObserver(() => {
      sidebar
        .querySelectorAll<HTMLElement>('.jp-FigureChat-vision[data-views="ready"]')
        .forEach(card => {
          const id = card.dataset.callId ?? '';
          if (!w.readyOrder.includes(id)) {
            w.readyOrder.push(id);
          }
        });
    }).observe(sidebar, { childList: true, subtree: true });
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
  await openChat(page).catch(() => undefined);
  await recordReadyOrder(page);
  const renders: string[] = [];
  page.on('request', request => {
    if (request.url().includes('/figure-chat/render')) {
      renders.push(request.url());
    }
  });
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
  const order = await page.evaluate(
    () => (window as unknown as { readyOrder: string[] }).readyOrder
  );
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
});

test('what the chat shows first is drawn before anything off-screen', async ({ page, tmpPath }) => {
  const path = `${tmpPath}/first.ipynb`;
  await putConversationNotebook(page, path, { messages: 120, figures: FIGURES, views: VIEWS });
  await openChat(page).catch(() => undefined);
  // Each figure or view image's first load, by its call and place in the card, on the page's
  // clock; and when the notebook was asked for.
  const since = await page.evaluate(() => {
    const w = window as unknown as { loads: Map<string, number> };
    w.loads = new Map();
    const sidebar = document.querySelector('#jp-figure-chat-sidebar') as HTMLElement;
    sidebar.addEventListener(
      'load',
      event => {
        const image = event.target;
        if (!(image instanceof HTMLImageElement)) {
          return;
        }
        const card = image.closest<HTMLElement>('[data-call-id]');
        const index = card ? Array.from(card.querySelectorAll('img')).indexOf(image) : -1;
        const id = `${card?.dataset.callId ?? '?'}#${index}`;
        if (!w.loads.has(id)) {
          w.loads.set(id, performance.now());
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
  const report = await page.evaluate(after => {
    const w = window as unknown as { loads: Map<string, number> };
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
    // When the last of what is in view was on screen.
    const shown = Math.max(...ids.map(id => w.loads.get(id) ?? Infinity));
    const renders = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter(entry => entry.startTime >= after && entry.name.includes('/figure-chat/render'))
      .map(entry => entry.startTime);
    return {
      inView: ids,
      viewCards: new Set(
        inView
          .map(image => image.closest<HTMLElement>('.jp-FigureChat-vision')?.dataset.callId)
          .filter(id => id !== undefined)
      ).size,
      offscreenBefore: [...w.loads]
        .filter(([id, at]) => at < shown && !ids.includes(id))
        .map(([id]) => id),
      rendersBefore: renders.filter(at => at < shown).length,
      renders: renders.length
    };
  }, since);
  // Something is in view, and everything was drawn.
  expect(report.inView.length).toBeGreaterThan(0);
  expect(report.renders).toBeGreaterThan(1);
  // No figure or view out of view was on screen before the last of those in view...
  expect(report.offscreenBefore).toEqual([]);
  // ...and no render request went out before it but the newest call's and those in view.
  expect(report.rendersBefore).toBeLessThanOrEqual(1 + report.viewCards);
});
