/**
 * No lost edits (issue 31, item 6): when the kernel restarts, a Vision output switches within a
 * second to its stored picture with a notice, takes no click, says which edits the kernel never
 * got, shows the same after the tab is closed and reopened, and edits again once its cell runs.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import { openNotebook, saveAndCloseAll, setCode, SETTINGS, visibleCells } from './helpers';
import { kernelIdle, marksLayer, runFirstCell, screenAt } from './labelling-steps';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const VISION =
  'import json, time\nimport numpy as np\nfrom jupyterlab_figure_chat import Vision\nv = Vision(np.full((300, 400, 3), 200, np.uint8))\nv';

/** Click picture pixel (x, y) of the 400×300 Vision in the notebook shown. */
async function clickPicture(page: IJupyterLabPageFixture, x: number, y: number): Promise<void> {
  const at = await screenAt(page, x + 0.5, y + 0.5);
  await page.mouse.click(at.x, at.y);
}

test('a kernel restart turns the Vision into its stored picture with a notice, and rerunning edits again', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/labelling-restart.ipynb`;
  await runFirstCell(page, path, VISION);
  const marks = marksLayer(page);
  await expect(marks).toBeVisible({ timeout: 60000 });
  const output = visibleCells(page).first().locator('.jp-FigureChat-liveOutput');

  // A first mark reaches the kernel and its saved output.
  await clickPicture(page, 100, 100);
  await expect(marks.locator('[data-mark]')).toHaveCount(1);
  await setCode(page, 1, 'print(json.dumps(v.marks))');
  await page.notebook.runCell(1, true);
  await expect(visibleCells(page).nth(1).locator('.jp-OutputArea-output')).toContainText(
    '"kind": "point"'
  );

  // The kernel is busy when the second mark is made: it never reads it before the restart.
  await setCode(page, 2, 'time.sleep(300)');
  await page.notebook.selectCells(2);
  await page.keyboard.press('Control+Enter');
  await expect(visibleCells(page).nth(2).locator('.jp-InputPrompt')).toContainText('*');
  await clickPicture(page, 300, 200);
  await expect(marks.locator('[data-mark]')).toHaveCount(2);

  // Time from the dialog's Restart button to the notice, measured in the page.
  await page.evaluate(() => {
    const times: Record<string, number> = {};
    Reflect.set(window, 'figureChatRestart', times);
    document.addEventListener(
      'click',
      event => {
        if (
          event.target instanceof Element &&
          event.target.closest('.jp-Dialog-button.jp-mod-accept')
        ) {
          times.clicked = performance.now();
        }
      },
      true
    );
    new MutationObserver(() => {
      if (times.notice === undefined && document.querySelector('.jp-FigureChat-visionNotice')) {
        times.notice = performance.now();
      }
    }).observe(document.body, { childList: true, subtree: true });
  });
  await page.menu.clickMenuItem('Kernel>Restart Kernel…');
  await page.locator('.jp-Dialog .jp-Dialog-button.jp-mod-accept').click();

  const notice = output.locator('.jp-FigureChat-visionNotice');
  await expect(notice).toContainText('The kernel restarted: run the cell again to edit.');
  // The mark the kernel never got is reported, not silently dropped.
  await expect(notice).toContainText('Your last edits were not saved');
  await expect(notice.getByRole('button', { name: 'Copy unsaved marks' })).toBeVisible();
  const times = (await page.evaluate(() => Reflect.get(window, 'figureChatRestart'))) as {
    clicked: number;
    notice: number;
  };
  expect(times.notice - times.clicked).toBeLessThan(1000);
  // The stored picture, not an editor: a click on it adds nothing.
  await expect(marks).toHaveCount(0);
  const stored = output.locator('img');
  await expect(stored).toBeVisible();
  await stored.click();
  await expect(output.locator('[data-mark]')).toHaveCount(0);

  // Closed and reopened, the tab shows the stored picture and the notice, not a dead editor.
  await saveAndCloseAll(page);
  await openNotebook(page, path);
  await expect(output.locator('.jp-FigureChat-visionNotice')).toContainText('The kernel restarted');
  await expect(output.locator('img')).toBeVisible({ timeout: 60000 });
  await expect(marks).toHaveCount(0);

  // Running the cell again makes a live widget that takes edits.
  await kernelIdle(page);
  await page.notebook.runCell(0, true);
  await expect(marks).toBeVisible({ timeout: 60000 });
  await expect(output.locator('.jp-FigureChat-visionNotice')).toHaveCount(0);
  await clickPicture(page, 50, 60);
  await expect(marks.locator('[data-mark]')).toHaveCount(1);
  await setCode(page, 1, 'print(json.dumps([[m["kind"], m["x"], m["y"]] for m in v.marks]))');
  await page.notebook.runCell(1, true);
  const printed = visibleCells(page).nth(1).locator('.jp-OutputArea-output');
  await expect(printed).toContainText('point');
  const read = JSON.parse((await printed.textContent()) ?? '[]') as Array<[string, number, number]>;
  expect(read).toHaveLength(1);
  expect(Math.abs(read[0][1] - 50)).toBeLessThanOrEqual(2);
  expect(Math.abs(read[0][2] - 60)).toBeLessThanOrEqual(2);
  await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
});

test('Kernel → Shut Down Kernel turns the Vision into its stored picture with a notice', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/labelling-shutdown.ipynb`;
  await runFirstCell(page, path, VISION);
  const marks = marksLayer(page);
  await expect(marks).toBeVisible({ timeout: 60000 });
  await clickPicture(page, 120, 90);
  await expect(marks.locator('[data-mark]')).toHaveCount(1);
  // The mark reached the kernel, which rewrites the stored picture a second after an edit.
  const output = visibleCells(page).first().locator('.jp-FigureChat-liveOutput');
  await setCode(page, 1, 'import time; time.sleep(1.5); print(len(v.marks))');
  await page.notebook.runCell(1, true);
  await expect(visibleCells(page).nth(1).locator('.jp-OutputArea-output')).toHaveText('1');

  await page.menu.clickMenuItem('Kernel>Shut Down Kernel');
  const notice = output.locator('.jp-FigureChat-visionNotice');
  await expect(notice).toContainText('The kernel shut down: run the cell again to edit.');
  // This edit was saved: no "not saved" warning.
  await expect(notice).not.toContainText('not saved');
  await expect(marks).toHaveCount(0);
  await expect(output.locator('img')).toBeVisible();
});
