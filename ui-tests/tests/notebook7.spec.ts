/**
 * Figure Chat in Jupyter Notebook 7's notebook view (`jupyter notebook`, started by
 * playwright.notebook.config.js): the sidebar opens beside the notebook, a figure and a vision view
 * show inline, and after save and reload the conversation replays with the same pictures; from
 * kernel code, a Vision widget takes a click that `v.marks` shows, and a Figure output renders.
 * Notebook 7 is not JupyterLab, so this uses plain Playwright pages, not Galata's fixtures.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, test, type Page } from '@playwright/test';

import { RUNTIME } from '../jupyter.mjs';
import { MODEL_URL, SERVER_URL } from './helpers';
import {
  NB7_CELLS,
  openInNotebook7,
  putNotebook,
  runCellAt,
  runVisionCell
} from './helpers-notebook7';

const NOTEBOOK = 'nb7.ipynb';
const PICTURE = 'nb7-picture.png';

function chatView(page: Page) {
  return page.locator('#jp-figure-chat-sidebar .jp-FigureChat-view:visible');
}

async function openNotebookView(page: Page): Promise<void> {
  await page.goto(`${SERVER_URL}notebooks/${NOTEBOOK}`);
  await page.waitForFunction(
    () => window.jupyterapp?.commands.hasCommand('figure-chat:open') === true,
    undefined,
    { timeout: 60000 }
  );
  await expect(page.locator('.jp-NotebookPanel')).toBeVisible();
  await page.evaluate(() => window.jupyterapp.commands.execute('figure-chat:open'));
  await expect(chatView(page)).toHaveCount(1);
  await expect(page.locator('#jp-figure-chat-sidebar .jp-FigureChat-header-title')).toHaveText(
    `Figure Chat — ${NOTEBOOK}`
  );
}

async function ask(page: Page, text: string): Promise<void> {
  const view = chatView(page);
  await view.locator('.jp-FigureChat-input').fill(text);
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-message-mod-user').last()).toContainText(text);
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
}

test.beforeAll(async ({ request }) => {
  // Notebook 7 reads the user settings from the test server's settings folder
  // (jupyter_server_test_config.py); Galata's settings mock is JupyterLab-only.
  const folder = join(RUNTIME, 'user-settings', 'jupyterlab-figure-chat');
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'plugin.jupyterlab-settings'),
    JSON.stringify({ endpoint: `${MODEL_URL}/v1`, model: 'scripted', acceptsImages: 'yes' })
  );
  const bytes = readFileSync(join(__dirname, '..', 'fixtures', 'picture.png')).toString('base64');
  const upload = await request.put(`${SERVER_URL}api/contents/${PICTURE}`, {
    data: { type: 'file', format: 'base64', content: bytes }
  });
  expect(upload.ok()).toBeTruthy();
  await putNotebook(request, NOTEBOOK, [], 'nb7');
});

test('sidebar, figure, vision and replay in the notebook view', async ({ page, request }) => {
  await openNotebookView(page);
  await ask(page, '[script:notebook-read] What is in this notebook?');
  await expect(
    chatView(page).locator('.jp-FigureChat-toolCard[data-tool="notebook_read"]')
  ).toHaveAttribute('data-state', 'completed');
  await ask(page, '[script:svg] sketch the pipeline');
  const caption = chatView(page).locator('.jp-FigureChat-figure figcaption', {
    hasText: 'Three stages'
  });
  await expect(caption).toHaveText('Three stages: load, fit, plot');
  await ask(page, `[script:vision-file] mark the corner of path=${PICTURE}`);
  const viewImage = chatView(page).locator('.jp-FigureChat-visionView img');
  await expect(viewImage).toHaveCount(1);
  const view = await viewImage.getAttribute('src');
  expect(view?.startsWith('data:image/png;base64,')).toBe(true);
  const figureImage = chatView(page).locator('.jp-FigureChat-figure img').first();
  const figure = await figureImage.getAttribute('src');

  await page.evaluate(() => window.jupyterapp.commands.execute('docmanager:save'));
  const saved = await request.get(`${SERVER_URL}api/contents/${NOTEBOOK}?content=1`);
  const model = (await saved.json()) as {
    content: { metadata: { figure_chat?: { messages: Array<{ role: string }> } } };
  };
  const roles = model.content.metadata.figure_chat?.messages.map(m => m.role) ?? [];
  expect(roles.filter(role => role === 'user').length).toBe(3);

  await openNotebookView(page);
  await expect(caption).toHaveText('Three stages: load, fit, plot');
  expect(await figureImage.getAttribute('src')).toBe(figure);
  await expect(viewImage).toHaveCount(1);
  expect(await viewImage.getAttribute('src')).toBe(view);
});

const WIDGET_NOTEBOOK = 'nb7-widget.ipynb';

test('a Vision widget takes a click that v.marks shows, and a Figure renders, in the notebook view', async ({
  page
}) => {
  await putNotebook(
    page.request,
    WIDGET_NOTEBOOK,
    [
      'import json\nimport numpy as np\nfrom jupyterlab_figure_chat import Figure, Vision\nv = Vision(np.full((300, 400, 3), 200, np.uint8))\nv',
      'print(json.dumps(v.marks))',
      'Figure(\'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="80"><rect x="10" y="10" width="150" height="50" fill="teal"/></svg>\', alt="A teal bar")'
    ],
    'widget'
  );
  // Waits for the kernel, as a person waits for the status to settle: a clean-clone CI run
  // pressed Shift+Enter too early once, and the cell was dropped.
  await openInNotebook7(page, WIDGET_NOTEBOOK);
  const cells = page.locator(NB7_CELLS);
  await expect(cells).toHaveCount(3);

  const marks = await runVisionCell(page);
  const box = await marks.boundingBox();
  expect(box).not.toBeNull();
  // Picture pixel (100, 60) of the 400×300 picture.
  await page.mouse.click(box!.x + (100.5 / 400) * box!.width, box!.y + (60.5 / 300) * box!.height);
  await expect(marks.locator('[data-mark]')).toHaveCount(1);

  await runCellAt(page, 1);
  const printed = cells.nth(1).locator('.jp-OutputArea-output');
  await expect(printed).toContainText('"kind": "point"', { timeout: 60000 });
  const read = JSON.parse((await printed.textContent()) ?? '[]') as Array<Record<string, number>>;
  expect(read).toHaveLength(1);
  expect(Math.abs(read[0].x - 100)).toBeLessThanOrEqual(2);
  expect(Math.abs(read[0].y - 60)).toBeLessThanOrEqual(2);

  await runCellAt(page, 2);
  await expect(cells.nth(2).locator('.jp-OutputArea-output img')).toBeVisible({ timeout: 60000 });
  await expect(page.locator('.jp-Notebook')).not.toContainText('Error displaying widget');
});
