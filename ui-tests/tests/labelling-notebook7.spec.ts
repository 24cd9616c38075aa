/**
 * Labelling in Jupyter Notebook 7's notebook view (started by playwright.notebook.config.js): the
 * same steps as JupyterLab's labelling.spec.ts (classes and hotkeys, resize, a polygon, undo, a
 * set's Prev / Next / Submit, shared in labelling-steps.ts), and Kernel → Restart turning the
 * widget into its stored picture with the notice within a second, after which running the cell
 * again edits again. Plain Playwright pages, as in notebook7.spec.ts.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import { expect, test, type Locator, type Page } from '@playwright/test';

import {
  NB7_CELLS as CELLS,
  openInNotebook7,
  putNotebook,
  runCellAt,
  runVisionCell
} from './helpers-notebook7';
import {
  editOnePicture,
  kernelIdle,
  ONE_PICTURE_CELL,
  type Print,
  SET_CELL,
  stepThroughSet
} from './labelling-steps';

const NOTEBOOK = 'nb7-labelling.ipynb';

// Only under playwright.notebook.config.js (a Notebook 7 server); the JupyterLab configs pick up
// every spec file and run this one's JupyterLab twin, labelling-restart.spec.ts, instead.
test.skip(process.env.FIGURE_CHAT_TEST_APP !== 'notebook', 'a Notebook 7 test');

/** Notebook 7's Print: the source goes into the cell's model, then the cell is run by keys. */
function notebookPrinter(page: Page): Print {
  return async <T>(index: number, source: string): Promise<T> => {
    await page.evaluate(
      ([at, text]) => {
        const panel = window.jupyterapp.shell.currentWidget as NotebookPanel;
        panel.content.widgets[Number(at)].model.sharedModel.setSource(String(text));
      },
      [index, source]
    );
    await runCellAt(page, index);
    const output = page.locator(CELLS).nth(index).locator('.jp-OutputArea-output');
    await expect(output).toContainText(/[\]}]\s*$/);
    return JSON.parse((await output.textContent()) ?? 'null') as T;
  };
}

/**
 * Make a notebook of `cells` (empty code cells after the first stay for the prints), open it and
 * run its first cell; the widget's marks layer.
 */
async function openWith(page: Page, name: string, cells: string[]): Promise<Locator> {
  await putNotebook(page.request, name, cells, 'labelling');
  await openInNotebook7(page, name);
  return runVisionCell(page);
}

test('classes and hotkeys, box resize, a polygon and undo/redo reach v.marks', async ({ page }) => {
  await openWith(page, 'nb7-labelling-edit.ipynb', [ONE_PICTURE_CELL, '', '']);
  await editOnePicture(page, notebookPrinter(page), () => page.locator(CELLS).count());
});

test('a picture set: Prev / Next / Submit and their keys through five pictures', async ({
  page
}) => {
  await openWith(page, 'nb7-labelling-set.ipynb', [SET_CELL, '']);
  await stepThroughSet(page, notebookPrinter(page));
});

async function printedMarks(page: Page): Promise<Array<Record<string, number | string>>> {
  await runCellAt(page, 1);
  const output = page.locator(CELLS).nth(1).locator('.jp-OutputArea-output');
  await expect(output).toContainText(']');
  return JSON.parse((await output.textContent()) ?? '[]') as Array<Record<string, number | string>>;
}

test('a class hotkey and a box reach v.marks, and a restart shows the stored picture with its notice', async ({
  page
}) => {
  const marks = await openWith(page, NOTEBOOK, [
    'import json\nimport numpy as np\nfrom jupyterlab_figure_chat import Vision\nv = Vision(np.full((300, 400, 3), 200, np.uint8), classes=["apple", "orange"])\nv',
    'print(json.dumps(v.marks))'
  ]);

  // Key 2 ("orange"), then a drawn box.
  await marks.focus();
  await page.keyboard.press('2');
  const box = await marks.boundingBox();
  expect(box).not.toBeNull();
  const at = (x: number, y: number) => ({
    x: box!.x + (x / 400) * box!.width,
    y: box!.y + (y / 300) * box!.height
  });
  await page.mouse.move(at(100.5, 60.5).x, at(100.5, 60.5).y);
  await page.mouse.down();
  await page.mouse.move(at(220.5, 160.5).x, at(220.5, 160.5).y, { steps: 8 });
  await page.mouse.up();
  await expect(marks.locator('[data-mark="1"]')).toHaveAttribute('data-label', 'orange');
  const read = await printedMarks(page);
  expect(read.map(mark => [mark.kind, mark.label])).toEqual([['box', 'orange']]);
  expect(Math.abs(Number(read[0].x0) - 100)).toBeLessThanOrEqual(2);

  // Kernel → Restart Kernel…, accepted: the notice within a second, the stored picture, no editor.
  await page.getByRole('menuitem', { name: 'Kernel' }).click();
  await page.getByRole('menuitem', { name: /^Restart Kernel…/ }).click();
  const accept = page.locator('.jp-Dialog .jp-Dialog-button.jp-mod-accept');
  await expect(accept).toBeVisible();
  const clicked = await page.evaluate(() => performance.now());
  await accept.click();
  const notice = page.locator('.jp-FigureChat-visionNotice');
  await expect(notice).toContainText('The kernel restarted: run the cell again to edit.');
  const shown = await page.evaluate(() => performance.now());
  expect(shown - clicked).toBeLessThan(1500);
  await expect(marks).toHaveCount(0);
  await expect(page.locator('.jp-FigureChat-liveOutput img')).toBeVisible();

  // Running the cell again gives a live widget that takes a click.
  await kernelIdle(page);
  await runCellAt(page, 0);
  await expect(marks).toBeVisible({ timeout: 60000 });
  await expect(notice).toHaveCount(0);
  const again = await marks.boundingBox();
  expect(again).not.toBeNull();
  await page.mouse.click(
    again!.x + (50.5 / 400) * again!.width,
    again!.y + (40.5 / 300) * again!.height
  );
  await expect(marks.locator('[data-mark]')).toHaveCount(1);
  const after = await printedMarks(page);
  expect(after.map(mark => [mark.kind, mark.label])).toEqual([['point', 'apple']]);
});
