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
