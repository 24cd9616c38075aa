/**
 * A long conversation stays fluid (issue 11.9): its messages sit in chunks, and the browser skips
 * the chunks off screen (no style, layout or paint for them) until the reader scrolls to them.
 * Scrolling up through what is already there is not "something new": no jump button.
 */
import { expect, test } from '@jupyterlab/galata';

import { benchNotebook } from '../bench/conversation';
import { chat, openChat, SETTINGS } from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

test('off-screen parts of a long conversation are skipped until scrolled to', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/long-chat.ipynb`;
  const put = await page.request.put(`/api/contents/${path}`, {
    data: {
      type: 'notebook',
      format: 'json',
      content: benchNotebook({ messages: 200, figures: 4, views: 0 })
    }
  });
  expect(put.ok()).toBeTruthy();
  await openChat(page).catch(() => undefined);
  await page.evaluate(async p => {
    await window.jupyterapp.commands.execute('docmanager:open', { path: p });
    await window.jupyterapp.commands.execute('figure-chat:open');
  }, path);

  const view = chat(page);
  const newest = view.locator('.jp-FigureChat-message').last();
  await expect(newest).toContainText('Here is figure 4');
  await expect(newest).toBeInViewport();
  // 200 items (4 of them figures) in chunks of 25.
  await expect(view.locator('.jp-FigureChat-chunk')).toHaveCount(8);
  const oldest = view.locator('.jp-FigureChat-message').first();
  await expect(oldest).toContainText('Question 0');
  // Off screen, the oldest message is not rendered at all; the newest is.
  const rendered = (element: Element): boolean =>
    element.checkVisibility({ contentVisibilityAuto: true });
  expect(await oldest.evaluate(rendered)).toBe(false);
  expect(await newest.evaluate(rendered)).toBe(true);

  // Scrolled to the top: now it is rendered, and nothing new arrived, so no jump is offered.
  const scroller = view.locator('.jp-FigureChat-scroller');
  await scroller.hover();
  await page.mouse.wheel(0, -120);
  await scroller.evaluate(node => (node.scrollTop = 0));
  await expect.poll(() => oldest.evaluate(rendered)).toBe(true);
  await expect(oldest).toBeInViewport();
  await expect(view.locator('.jp-FigureChat-lazy')).toHaveCount(0);
  await expect(view.locator('.jp-FigureChat-jump')).toBeHidden();
});
