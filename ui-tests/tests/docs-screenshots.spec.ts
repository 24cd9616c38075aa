/**
 * The documentation's screenshots (docs/_static/screenshots/, shown by README.md and the docs
 * site), taken from the real product so they never go stale: the tour notebook's saved
 * conversation replaying its figure and vision views with no model, and a Vision widget in a
 * notebook. Each screenshot is taken only once what it is meant to show is on the page, so a
 * broken replay or widget fails this spec instead of committing a picture of an error.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, test } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';

import {
  chat,
  createNotebookFile,
  openChat,
  openNotebook,
  setCode,
  SERVER_URL,
  SETTINGS
} from './helpers';

const SCREENSHOTS = join(__dirname, '..', '..', 'docs', '_static', 'screenshots');
const TOUR = join(__dirname, '..', '..', 'examples', 'figure-chat-tour.ipynb');

test.use({
  mockSettings: SETTINGS,
  kernels: null,
  sessions: null,
  terminals: null,
  viewport: { width: 1280, height: 760 }
});

test.beforeAll(() => {
  mkdirSync(SCREENSHOTS, { recursive: true });
});

/** Wait until an `<img>` has decoded a picture at least `width` pixels wide. */
async function expectDecoded(image: Locator, width: number): Promise<void> {
  await expect
    .poll(() => image.evaluate(img => (img as HTMLImageElement).naturalWidth), { timeout: 60000 })
    .toBeGreaterThanOrEqual(width);
}

test('the tour notebook replays its figure and views (docs screenshots)', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/figure-chat-tour.ipynb`;
  const content = JSON.parse(readFileSync(TOUR, 'utf8')) as unknown;
  const put = await page.request.put(`${SERVER_URL}api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content }
  });
  expect(put.ok()).toBeTruthy();
  await openNotebook(page, path);
  await openChat(page);
  // The notebook and the chat side by side, as a reader should see them: no file browser (its
  // listing would show the test's temporary folder), and a chat wide enough to read.
  await page.sidebar.close('left');
  expect(await page.sidebar.setWidth(420, 'right')).toBe(true);

  const view = chat(page);
  const figure = view.locator('figure.jp-FigureChat-figure:not(.jp-FigureChat-visionView)');
  await expect(figure.locator('figcaption')).toHaveText('Three stages: load, fit, plot');
  const views = view.locator('.jp-FigureChat-visionView img');
  // The tour's vision_mark map and vision_show close-up, drawn again from the notebook's plot.
  await expect(views).toHaveCount(2, { timeout: 60000 });
  await expectDecoded(views.first(), 200);
  await expectDecoded(views.last(), 200);

  // The same picture from run to run where the product allows: a saved notebook (no "unsaved"
  // dot), an idle kernel, and each item scrolled to the same place.
  await page.notebook.save();
  await expect(page.locator('.jp-StatusBar-TextItem', { hasText: '| Idle' })).toBeVisible({
    timeout: 60000
  });
  await figure.evaluate(element => element.scrollIntoView({ block: 'center' }));
  await expect(figure.locator('img')).toBeInViewport();
  await expectDecoded(figure.locator('img'), 100);
  await page.screenshot({ path: join(SCREENSHOTS, 'chat-figure.png') });

  const map = view.locator('.jp-FigureChat-visionView').first();
  await map.evaluate(element => element.scrollIntoView({ block: 'center' }));
  await expect(map.locator('img')).toBeInViewport();
  await page.screenshot({ path: join(SCREENSHOTS, 'chat-view.png') });
});

test('a Vision widget with marks (docs screenshot)', async ({ page, tmpPath }) => {
  const path = `${tmpPath}/vision-widget.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await setCode(
    page,
    0,
    [
      'import numpy as np',
      'from jupyterlab_figure_chat import Vision',
      'y, x = np.mgrid[0:300, 0:640]',
      'picture = np.zeros((300, 640, 3), np.uint8)',
      'picture[..., 2] = 70 + x // 4',
      'for cx, cy in [(120, 90), (300, 200), (400, 80), (560, 220)]:',
      '    picture[(x - cx) ** 2 + (y - cy) ** 2 < 28 ** 2] = (240, 200, 60)',
      'v = Vision(picture)',
      'v.mark(["120,90", "300,200", "368,48,432,112"], captions=["colony", "colony", "colony, boxed"])',
      'v'
    ].join('\n')
  );
  await page.notebook.runCell(0, true);
  const editor = page.locator('.jp-NotebookPanel:visible .jp-FigureChat-visionEditor');
  await expectDecoded(editor.locator('.jp-FigureChat-visionStage img'), 640);
  await expect(editor.locator('[data-mark]')).toHaveCount(3);
  await editor.scrollIntoViewIfNeeded();
  await editor.screenshot({ path: join(SCREENSHOTS, 'vision-widget.png') });
  await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
});
