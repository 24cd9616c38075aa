/**
 * The core path under a JupyterHub single-user server's base URL (`/user/alice/`, set by
 * playwright.baseurl.config.js): a chat with a notebook_read card, a figure and a vision view over
 * a workspace picture, all through `<base_url>figure-chat/…`; after save, restart and reload the
 * same conversation replays. Also: the page loads with no "Unsatisfied version" warnings (the
 * labextension's @jupyterlab/* requirements match the JupyterLab it runs in).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, test as galataTest } from '@jupyterlab/galata';

import { restartJupyter } from '../jupyter.mjs';
import {
  ask,
  chat,
  createNotebookFile,
  openChat,
  openNotebook,
  reloadLab,
  saveAndCloseAll,
  SERVER_URL,
  SETTINGS,
  storedTranscript
} from './helpers';

// Galata creates its per-test folder through `/api/contents` without the base URL; this one
// goes through it.
const test = galataTest.extend({
  tmpPath: async ({ request }, use, testInfo) => {
    const folder = `hub-${testInfo.testId}`;
    const created = await request.put(`${SERVER_URL}api/contents/${folder}`, {
      data: { type: 'directory' }
    });
    expect(created.ok()).toBeTruthy();
    await use(folder);
  }
});

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

test('chat, figure and vision work and replay under /user/alice/', async ({ page, tmpPath }) => {
  expect(new URL(SERVER_URL).pathname).toBe('/user/alice/');
  expect(new URL(page.url()).pathname.startsWith('/user/alice/lab')).toBe(true);
  const warnings: string[] = [];
  page.on('console', message => {
    if (/Unsatisfied version/.test(message.text())) {
      warnings.push(message.text());
    }
  });
  const figureServer: string[] = [];
  page.on('request', request => {
    const path = new URL(request.url()).pathname;
    if (path.includes('/figure-chat/')) {
      figureServer.push(path);
    }
  });

  const picture = `${tmpPath}/picture.png`;
  const bytes = readFileSync(join(__dirname, '..', 'fixtures', 'picture.png')).toString('base64');
  const upload = await page.request.put(`${SERVER_URL}api/contents/${picture}`, {
    data: { type: 'file', format: 'base64', content: bytes }
  });
  expect(upload.ok()).toBeTruthy();
  const path = `${tmpPath}/hub.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await openChat(page);

  await ask(page, '[script:notebook-read] What is in this notebook?');
  await expect(
    chat(page).locator('.jp-FigureChat-toolCard[data-tool="notebook_read"]')
  ).toHaveAttribute('data-state', 'completed');
  await ask(page, '[script:svg] sketch the pipeline');
  await expect(
    chat(page).locator('.jp-FigureChat-figure figcaption', { hasText: 'Three stages' })
  ).toHaveText('Three stages: load, fit, plot');
  await ask(page, `[script:vision-file] mark the corner of path=${picture}`);
  await expect(chat(page).locator('.jp-FigureChat-visionView')).toHaveCount(1);
  const view = await chat(page).locator('.jp-FigureChat-visionView img').getAttribute('src');
  expect(view?.startsWith('data:image/png;base64,')).toBe(true);

  // The model stream, the SVG check and the vision render all went through the base URL.
  expect(figureServer.length).toBeGreaterThan(0);
  expect(figureServer.filter(p => !p.startsWith('/user/alice/figure-chat/'))).toEqual([]);
  expect(figureServer.some(p => p.endsWith('/figure-chat/model'))).toBe(true);

  await saveAndCloseAll(page);
  const stored = await storedTranscript(page, path);
  expect(stored.messages.filter(m => m.role === 'user').length).toBe(3);

  await restartJupyter();
  await reloadLab(page);
  await openNotebook(page, path);
  await openChat(page);
  await expect(
    chat(page).locator('.jp-FigureChat-figure figcaption', { hasText: 'Three stages' })
  ).toHaveText('Three stages: load, fit, plot');
  await expect(chat(page).locator('.jp-FigureChat-visionView')).toHaveCount(1);
  expect(await chat(page).locator('.jp-FigureChat-visionView img').getAttribute('src')).toBe(view);
  expect(warnings).toEqual([]);
});
