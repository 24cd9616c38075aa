/**
 * The foundation, as a person uses it: ask, watch the streamed answer and a tool card, save,
 * restart JupyterLab, reopen, and find the same conversation; separate notebooks keep separate
 * chats; a refused endpoint says what to do; Stop stops.
 */
import { expect, test } from '@jupyterlab/galata';

import { restartJupyter } from '../jupyter.mjs';
import {
  ask,
  chat,
  createNotebookFile,
  MODEL_URL,
  openChat,
  openNotebook,
  reloadLab,
  SETTINGS,
  storedTranscript,
  typeInCell
} from './helpers';

test.use({ mockSettings: SETTINGS, autoGoto: true });

test.describe('across a restart', () => {
  // Galata's kernel and session tracking proxies requests, which fail while the server restarts.
  test.use({ kernels: null, sessions: null, terminals: null });

  test('a streamed answer with a notebook_read card survives save, restart and reopen', async ({
    page,
    tmpPath
  }) => {
    const name = 'chat-a.ipynb';
    await page.notebook.createNew(name);
    await typeInCell(page, 0, 'x = 41 + 1');
    await openChat(page);
    await ask(page, '[script:notebook-read] What is in this notebook?');

    const card = chat(page).locator('.jp-FigureChat-toolCard[data-tool="notebook_read"]');
    await expect(card).toHaveAttribute('data-state', 'completed');
    await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
      'I read the notebook: it has cells.'
    );
    await card.locator('summary').click();
    await expect(card.locator('.jp-FigureChat-toolCard-result')).toContainText('x = 41 + 1');

    await page.notebook.save();
    const stored = await storedTranscript(page, `${tmpPath}/${name}`);
    expect(stored.version).toBe(1);
    expect(stored.messages.map(m => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    await page.notebook.close();
    await restartJupyter();
    await reloadLab(page);
    await openNotebook(page, `${tmpPath}/${name}`);
    await openChat(page);
    const replayed = chat(page).locator('.jp-FigureChat-toolCard[data-tool="notebook_read"]');
    await expect(replayed).toHaveAttribute('data-state', 'completed');
    await expect(chat(page).locator('.jp-FigureChat-message-mod-user')).toContainText(
      'What is in this notebook?'
    );
    await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
      'I read the notebook: it has cells.'
    );
  });
});

test('a reload in the middle of an answer keeps the partial answer, marked interrupted', async ({
  page,
  tmpPath
}) => {
  await page.notebook.createNew('reload.ipynb');
  await openChat(page);
  const view = chat(page);
  await view.locator('.jp-FigureChat-input').fill('[script:slow] keep talking');
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-message-mod-assistant').last()).toContainText('word5');
  // What autosave would do mid-stream: save while the answer is still streaming. The save keeps
  // all that is shown when it starts (streaming writes are throttled, so it writes them first).
  const shown = await page.evaluate(async () => {
    const replies = document.querySelectorAll(
      '#jp-figure-chat-sidebar .jp-FigureChat-view:not(.lm-mod-hidden) .jp-FigureChat-message-mod-assistant'
    );
    const text = replies[replies.length - 1]?.textContent ?? '';
    await window.jupyterapp.commands.execute('docmanager:save');
    return text.match(/word\d+/g)?.pop() ?? '';
  });
  expect(shown).toMatch(/^word\d+$/);
  const saved = await storedTranscript(page, `${tmpPath}/reload.ipynb`);
  const partial = saved.messages.filter(m => m.role === 'assistant').pop();
  expect(String(partial?.content)).toContain(`${shown} `);

  await reloadLab(page);
  await openNotebook(page, `${tmpPath}/reload.ipynb`);
  await openChat(page);
  const replayed = chat(page).locator('.jp-FigureChat-message-mod-assistant').last();
  await expect(replayed).toHaveAttribute('data-status', 'interrupted');
  await expect(replayed).toContainText('word');
  await expect(replayed.locator('.jp-FigureChat-interrupted')).toHaveText('Interrupted');
});

test('two notebooks keep separate conversations', async ({ page, tmpPath }) => {
  // Written on the server and opened, not made with File > New twice: Galata names a new notebook
  // by renaming an Untitled.ipynb, and the second Untitled.ipynb once found the first one's
  // kernel session (its path not yet renamed), opened without the kernel dialog, and Galata's
  // `createNew` waited for that dialog until the test timed out (clean-clone CI, 2026-12-02).
  await createNotebookFile(page, `${tmpPath}/one.ipynb`);
  await openNotebook(page, `${tmpPath}/one.ipynb`);
  await openChat(page);
  await ask(page, '[script:hello] first notebook question');
  await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant')).toContainText(
    'Hello from the scripted model.'
  );

  await createNotebookFile(page, `${tmpPath}/two.ipynb`);
  await openNotebook(page, `${tmpPath}/two.ipynb`);
  await openChat(page);
  await expect(chat(page).locator('.jp-FigureChat-message-mod-user')).toHaveCount(0);
  await ask(page, '[script:hello] second notebook question');
  await expect(chat(page).locator('.jp-FigureChat-message-mod-user')).toHaveCount(1);

  await openNotebook(page, `${tmpPath}/one.ipynb`);
  await expect(chat(page).locator('.jp-FigureChat-message-mod-user')).toHaveText([
    '[script:hello] first notebook question'
  ]);
});

test('a refused endpoint shows what to do, and Stop stops a running answer', async ({
  page,
  tmpPath
}) => {
  await page.notebook.createNew('faults.ipynb');
  await openChat(page);
  await page.evaluate(async () => {
    const registry = await window.galata.getPlugin('@jupyterlab/apputils-extension:settings');
    await registry?.set('jupyterlab-figure-chat:plugin', 'endpoint', 'http://127.0.0.1:59999/v1');
  });
  await ask(page, 'anyone there?');
  const error = chat(page).locator('.jp-FigureChat-error');
  await expect(error).toContainText('No model server answered');
  await expect(error).toContainText('Settings');

  await page.evaluate(async endpoint => {
    const registry = await window.galata.getPlugin('@jupyterlab/apputils-extension:settings');
    await registry?.set('jupyterlab-figure-chat:plugin', 'endpoint', endpoint);
  }, `${MODEL_URL}/v1`);
  const view = chat(page);
  await view.locator('.jp-FigureChat-input').fill('[script:slow] talk forever');
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-message-mod-assistant').last()).toContainText('word3');
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Stop');
  await view.locator('.jp-FigureChat-send').click();
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
  const last = view.locator('.jp-FigureChat-message-mod-assistant').last();
  await expect(last).toHaveAttribute('data-status', 'interrupted');
  await page.notebook.save();
  const stored = await storedTranscript(page, `${tmpPath}/faults.ipynb`);
  const assistant = stored.messages.filter(m => m.role === 'assistant');
  expect(assistant[assistant.length - 1].status).toBe('interrupted');
  expect(String(assistant[assistant.length - 1].content)).toContain('word3');
  expect(String(assistant[0].error)).toContain('No model server answered');
});
