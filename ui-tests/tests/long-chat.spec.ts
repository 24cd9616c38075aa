/**
 * A long conversation stays fluid (issue 11.9): its messages sit in chunks, and the browser skips
 * the chunks off screen (no style, layout or paint for them) until the reader scrolls to them.
 * Scrolling up through what is already there is not "something new": no jump button.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import { chat, openChatSidebar, putConversationNotebook, SETTINGS } from './helpers';

declare global {
  interface Window {
    /** Find in page (Chromium's `window.find`, which TypeScript's DOM types leave out). */
    find(text: string): boolean;
  }
}

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

/** Open the notebook and its chat, as the reopen benchmark does. */
async function openConversation(page: IJupyterLabPageFixture, path: string): Promise<void> {
  await openChatSidebar(page);
  await page.evaluate(async p => {
    await window.jupyterapp.commands.execute('docmanager:open', { path: p });
    await window.jupyterapp.commands.execute('figure-chat:open');
  }, path);
}

test('off-screen parts of a long conversation are skipped until scrolled to', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/long-chat.ipynb`;
  await putConversationNotebook(page, path, { messages: 200, figures: 4, views: 0 });
  await openConversation(page, path);

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

test('off-screen answers keep their text as written until they come near, then render', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/long-answers.ipynb`;
  await putConversationNotebook(page, path, { messages: 200, figures: 4, views: 0 });
  await openConversation(page, path);

  const view = chat(page);
  const answers = view.locator('.jp-FigureChat-message-mod-assistant');
  const newest = answers.filter({ hasText: 'Answer' }).last();
  // Near the end, answers are rendered Markdown.
  await expect(newest.locator('strong')).toHaveText('Markdown');
  await expect(newest.locator('.jp-FigureChat-code pre')).toBeVisible();
  // Every figure rendered (in the background too): the chat has settled.
  await expect(view.locator('.jp-FigureChat-lazy')).toHaveCount(0);
  // Far above, an answer shows its text as written, unparsed, and nothing else was done for it.
  const first = await answers
    .filter({ hasText: /Answer \d+ with/ })
    .first()
    .textContent();
  const turn = /Answer (\d+) with/.exec(first ?? '')?.[1];
  const oldest = answers.filter({ hasText: `Answer ${turn} with` });
  await expect(oldest.locator('.jp-FigureChat-block-mod-waiting')).toHaveText(
    `Answer ${turn} with **Markdown** and a list:\n\n- one\n- two\n\n\`\`\`python\nprint(${turn})\n\`\`\``
  );
  await expect(oldest.locator('strong')).toHaveCount(0);
  // Find in page still finds its words.
  expect(await page.evaluate(t => window.find(`Answer ${t} with **Markdown**`), turn)).toBe(true);
  // Its copy button copies what was said.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await oldest.locator('xpath=..').locator('.jp-FigureChat-copyMessage').click();
  await expect
    .poll(() => page.evaluate(() => navigator.clipboard.readText()))
    .toContain(`Answer ${turn} with **Markdown**`);

  // Scrolled to it: it is rendered, and the text as written is gone.
  await view.locator('.jp-FigureChat-scroller').evaluate(node => (node.scrollTop = 0));
  await expect(oldest.locator('strong')).toHaveText('Markdown');
  await expect(oldest.locator('.jp-FigureChat-code pre')).toHaveText(`print(${turn})`);
  await expect(oldest.locator('.jp-FigureChat-block-mod-waiting')).toHaveCount(0);
});
