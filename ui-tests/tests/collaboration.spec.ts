/**
 * Real-time collaboration (jupyter-collaboration, in its own environment; see
 * playwright.rtc.config.js): two browsers on one notebook each see the other's conversation; when
 * both ask at once neither question nor answer is lost or doubled; a reload shows the same
 * transcript. Plain Playwright contexts, since Galata's fixtures drive a single page.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, test, type Browser, type Page } from '@playwright/test';

import { ROOT, RUNTIME } from '../jupyter.mjs';
import { MODEL_URL, SERVER_URL } from './helpers';

const NOTEBOOK = 'rtc.ipynb';

function chatView(page: Page) {
  return page.locator('#jp-figure-chat-sidebar .jp-FigureChat-view:visible');
}

async function openShared(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${SERVER_URL}lab/tree/${NOTEBOOK}`);
  await page.waitForFunction(
    () => window.jupyterapp?.commands.hasCommand('figure-chat:open') === true,
    undefined,
    { timeout: 60000 }
  );
  await expect(page.locator('.jp-NotebookPanel')).toBeVisible({ timeout: 60000 });
  await page.evaluate(() => window.jupyterapp.commands.execute('figure-chat:open'));
  await expect(page.locator('#jp-figure-chat-sidebar .jp-FigureChat-header-title')).toHaveText(
    `Figure Chat — ${NOTEBOOK}`
  );
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await chatView(page).locator('.jp-FigureChat-input').fill(text);
  await chatView(page).locator('.jp-FigureChat-input').press('Enter');
}

async function turnEnded(page: Page): Promise<void> {
  await expect(chatView(page).locator('.jp-FigureChat-send')).toHaveText('Send');
}

/** The user messages a page shows, in order. */
function questions(page: Page): Promise<string[]> {
  return chatView(page)
    .locator('.jp-FigureChat-message-mod-user')
    .evaluateAll(nodes => nodes.map(node => (node.textContent ?? '').trim()));
}

test.beforeAll(async ({ request }) => {
  const folder = join(RUNTIME, 'user-settings', 'jupyterlab-figure-chat');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'plugin.jupyterlab-settings'),
    JSON.stringify({ endpoint: `${MODEL_URL}/v1`, model: 'scripted', acceptsImages: 'yes' })
  );
  const content = {
    cells: [],
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    nbformat: 4,
    nbformat_minor: 5
  };
  const created = await request.put(`${SERVER_URL}api/contents/${NOTEBOOK}`, {
    data: { type: 'notebook', format: 'json', content }
  });
  expect(created.ok()).toBeTruthy();
});

test('two clients share one conversation without losing or doubling messages', async ({
  browser
}) => {
  const alice = await openShared(browser);
  const bob = await openShared(browser);

  // Each sees the other's conversation.
  await send(alice, '[script:notebook-read] first, from alice');
  await turnEnded(alice);
  await expect(chatView(bob).locator('.jp-FigureChat-message-mod-user')).toHaveText([
    /first, from alice/
  ]);
  await expect(chatView(bob).locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
    'I read the notebook: it has cells.'
  );

  // Both ask at once: each answer streams and writes while the other's does.
  await Promise.all([
    send(alice, '[script:notebook-read] together, from alice'),
    send(bob, '[script:notebook-read] together, from bob')
  ]);
  await Promise.all([turnEnded(alice), turnEnded(bob)]);
  for (const page of [alice, bob]) {
    const user = chatView(page).locator('.jp-FigureChat-message-mod-user');
    await expect(user).toHaveCount(3);
    await expect(user.filter({ hasText: 'together, from alice' })).toHaveCount(1);
    await expect(user.filter({ hasText: 'together, from bob' })).toHaveCount(1);
    await expect(
      chatView(page).locator('.jp-FigureChat-message-mod-assistant', {
        hasText: 'I read the notebook: it has cells.'
      })
    ).toHaveCount(3);
  }
  await expect.poll(() => questions(bob)).toEqual(await questions(alice));

  // Saved and reloaded, either shows the same transcript. The collaboration server saves the
  // shared document itself, so the page's own save can find the file changed on disk since it
  // last looked and ask whether to overwrite it: the command then waits for that answer (a CI run
  // waited out the test's timeout). So the save is not awaited, the question is answered with
  // Overwrite (the page holds the shared document, the same transcript), and the file is read
  // until it holds the three questions. It is read from disk, not through the contents API:
  // jupyter_server takes a notebook it reads half-written (the collaboration server saving it
  // at that moment) for a broken one, moves it aside as `rtc.ipynb.invalid` and puts the copy
  // from before the save back, so the save was lost and no later save came (a CI run on
  // 2026-12-02 waited out the 60 s with the old file on disk).
  await alice.evaluate(() => {
    void window.jupyterapp.commands.execute('docmanager:save');
  });
  const overwrite = alice.getByRole('button', { name: 'Overwrite' });
  let stored: Array<{ id: string; role: string }> = [];
  await expect
    .poll(
      async () => {
        if (await overwrite.isVisible()) {
          await overwrite.click();
        }
        let saved: {
          metadata: { figure_chat?: { messages: Array<{ id: string; role: string }> } };
        };
        try {
          saved = JSON.parse(readFileSync(join(ROOT, NOTEBOOK), 'utf8'));
        } catch (error) {
          // Read while the server writes it: read again.
          return String(error);
        }
        stored = saved.metadata.figure_chat?.messages ?? [];
        return stored.filter(m => m.role === 'user').length;
      },
      { timeout: 60000 }
    )
    .toBe(3);
  expect(new Set(stored.map(m => m.id)).size).toBe(stored.length);
  const before = await questions(alice);
  await bob.reload();
  const reloaded = await openSharedPage(bob);
  await expect.poll(() => questions(reloaded)).toEqual(before);
});

/** After a reload: wait for Figure Chat again and open its sidebar. */
async function openSharedPage(page: Page): Promise<Page> {
  await page.waitForFunction(
    () => window.jupyterapp?.commands.hasCommand('figure-chat:open') === true,
    undefined,
    { timeout: 60000 }
  );
  await expect(page.locator('.jp-NotebookPanel')).toBeVisible({ timeout: 60000 });
  await page.evaluate(() => window.jupyterapp.commands.execute('figure-chat:open'));
  await expect(chatView(page).locator('.jp-FigureChat-message-mod-user')).toHaveCount(3);
  return page;
}
