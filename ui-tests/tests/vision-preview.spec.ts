/**
 * The Vision widget's preview is not widget state: the kernel pushes it when the widget is shown,
 * and a view made later asks for it. After a page reload with the kernel still running, the live
 * widget comes back with its picture and its marks.
 */
import { expect, test } from '@jupyterlab/galata';

import { createNotebookFile, openNotebook, reloadLab, SETTINGS } from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

test('a Vision widget shows its picture again after a reload with a live kernel', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/vision-preview.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await page.notebook.setCell(
    0,
    'code',
    'import numpy as np\nfrom jupyterlab_figure_chat import Vision\nv = Vision(np.full((300, 400, 3), 120, np.uint8))\nv.mark(["100,100"])\nv'
  );
  await page.notebook.runCell(0, true);
  const live = page.locator('.jp-NotebookPanel:visible .jp-FigureChat-visionEditor');
  const picture = live.locator('.jp-FigureChat-visionStage img');
  await expect(picture).toHaveJSProperty('complete', true, { timeout: 60000 });
  await expect(live.locator('[data-mark]')).toHaveCount(1);
  await page.notebook.save();

  await reloadLab(page);
  await openNotebook(page, path);
  // The live widget again (not the saved PNG): its preview came from the kernel on request.
  await expect(picture).toBeVisible({ timeout: 60000 });
  await expect
    .poll(() => picture.evaluate(image => (image as HTMLImageElement).naturalWidth), {
      timeout: 60000
    })
    .toBe(400);
  await expect(live.locator('[data-mark]')).toHaveCount(1);
  await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
});
