/**
 * A reopened conversation scrolled to its oldest vision call while its views are still being drawn
 * (issue 13 goal 4, "render in viewport order"): once its card is in view, that call's views are
 * drawn next, even when the card was already built in the background (off-screen cards are, a
 * few per frame, long before their views come back), and not in queue order, where the oldest
 * call is the last.
 */
import { expect, test } from '@jupyterlab/galata';

import {
  chat,
  openChatSidebar,
  putConversationNotebook,
  readyOrder,
  recordReadyOrder,
  SETTINGS
} from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

/** Enough close-ups that the oldest waits behind several requests of eight. */
const VIEWS = 48;

/** How late each render request is sent on (see the test). */
const RENDER_DELAY_MS = 500;

test('a vision card scrolled into view has its views drawn next', async ({ page, tmpPath }) => {
  const path = `${tmpPath}/scroll.ipynb`;
  await putConversationNotebook(page, path, { messages: 200, figures: 10, views: VIEWS });
  await openChatSidebar(page);
  await recordReadyOrder(page);
  // Every render request's body, in the order sent.
  const bodies: string[] = [];
  // The oldest call's close-up (bench/conversation.ts places the nth at 100 + 5n, 60 + 3n).
  const asksOldest = (body: string): boolean => body.includes('"105,63"');
  const isRender = (url: URL): boolean => url.pathname.endsWith('/figure-chat/render');
  page.on('request', request => {
    if (isRender(new URL(request.url()))) {
      bodies.push(request.postData() ?? '');
    }
  });
  // Each render answered a moment late, as on a loaded machine. Requests for off-screen cards,
  // and any for the oldest call, are answered only once the scroll below has landed: views drawn
  // at the chat's width come back so fast that the queue drained to the oldest call while the
  // scroll was still on its way (a busy page took a second over it), and its views came back
  // mid-scroll and replaced its card under the scroll.
  let scrolled = (): void => undefined;
  const landed = new Promise<void>(resolve => (scrolled = resolve));
  // By path: the page adds a query (a cache-buster) to each request, which a glob ending in
  // `/render` never matched, so requests went unheld.
  await page.route(isRender, async route => {
    await new Promise(resolve => setTimeout(resolve, RENDER_DELAY_MS));
    const body = route.request().postData() ?? '';
    if (!body.includes('"visible":true') || asksOldest(body)) {
      await landed;
    }
    await route.continue();
  });
  await page.evaluate(async p => {
    await window.jupyterapp.commands.execute('docmanager:open', { path: p });
    await window.jupyterapp.commands.execute('figure-chat:open');
  }, path);

  const view = chat(page);
  await expect(view.locator('.jp-FigureChat-message').last()).toBeInViewport();
  // Every card built (off-screen ones in the background), the oldest call's views still queued.
  await expect(view.locator('.jp-FigureChat-lazy')).toHaveCount(0);
  const oldest = view.locator('.jp-FigureChat-vision[data-call-id="v1"]');
  expect(
    bodies.some(asksOldest),
    'the oldest call was asked for before its card was built: this machine is too fast for the test'
  ).toBe(false);
  const sent = bodies.length;
  await oldest.scrollIntoViewIfNeeded();
  await expect(oldest).toBeInViewport();
  scrolled();

  await expect(view.locator('.jp-FigureChat-visionView img')).toHaveCount(VIEWS, {
    timeout: 120000
  });
  expect(await readyOrder(page)).toHaveLength(VIEWS);
  // In queue order the oldest call goes in the last request, with the next oldest. Scrolled to,
  // it goes as soon as its card reports it in view (batches taken meanwhile may go first), alone,
  // asking the figure server to draw it before the views queued there, and the calls still
  // queued follow it.
  const after = bodies.slice(sent);
  const at = after.findIndex(asksOldest);
  expect(at).toBeGreaterThanOrEqual(0);
  expect(JSON.parse(after[at])).toMatchObject({ visible: true, views: [{ at: '105,63' }] });
  expect(after.length).toBeGreaterThan(at + 1);
});
