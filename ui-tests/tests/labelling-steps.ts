/**
 * Labelling steps shared by the JupyterLab and Notebook 7 specs (labelling.spec.ts,
 * labelling-notebook7.spec.ts, labelling-chat.spec.ts): pointer gestures in picture pixels, a wait
 * for the kernel, and the two editing scenarios, which read the kernel's side through a `print`
 * the app's spec provides (each app runs a cell its own way).
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { NotebookPanel } from '@jupyterlab/notebook';
import { expect, type Locator, type Page } from '@playwright/test';

import { createNotebookFile, openNotebook, setCode, visibleCells } from './helpers';

/** What the steps use of a page: Galata's fixture and a plain Playwright page both fit. */
export type LabellingPage = Pick<Page, 'locator' | 'mouse' | 'keyboard' | 'waitForFunction'>;

/** Run cell `index` holding `source` and parse the JSON it prints. */
export type Print = <T>(index: number, source: string) => Promise<T>;

/** JupyterLab's Print: type the source into the cell, run it, parse its output. */
export function labPrinter(page: IJupyterLabPageFixture): Print {
  return async <T>(index: number, source: string): Promise<T> => {
    await setCode(page, index, source);
    await page.notebook.runCell(index, true);
    const output = visibleCells(page).nth(index).locator('.jp-OutputArea-output');
    await expect(output).toContainText(/[\]}]\s*$/);
    return JSON.parse((await output.textContent()) ?? 'null') as T;
  };
}

/** A mark as `v.marks` / `s.annotations` hold it. */
export interface Mark {
  id: number;
  kind: string;
  label?: string;
  x0?: number;
  y0?: number;
  x1?: number;
  y1?: number;
  points?: number[][];
}

/** The first cell of the one-picture scenario (`v`, classes apple / orange / pear). */
export const ONE_PICTURE_CELL =
  'import json\nimport numpy as np\nfrom jupyterlab_figure_chat import Vision\nv = Vision(np.full((300, 400, 3), 200, np.uint8), classes=["apple", "orange", "pear"])\nv';

/** The first cell of the set scenario (`s`, five pictures, classes cat / dog). */
export const SET_CELL =
  'import json\nimport numpy as np\nfrom jupyterlab_figure_chat import VisionSet\ns = VisionSet([np.full((300, 400, 3), 40 * i, np.uint8) for i in range(5)], classes=["cat", "dog"])\nsubmitted = []\ns.on_submit(lambda name, marks: submitted.append([name, len(marks)]))\ns';

/** Wait until the current notebook's kernel is idle (a cell run before it is dropped). */
export async function kernelIdle(page: LabellingPage): Promise<void> {
  await page.waitForFunction(
    () => {
      const panel = window.jupyterapp.shell.currentWidget as NotebookPanel | null;
      return panel?.sessionContext?.session?.kernel?.status === 'idle';
    },
    undefined,
    { timeout: 60000 }
  );
}

/**
 * JupyterLab: write an empty notebook, open it, type `source` into its first cell and run it once
 * the kernel is idle.
 */
export async function runFirstCell(
  page: IJupyterLabPageFixture,
  path: string,
  source: string
): Promise<void> {
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await setCode(page, 0, source);
  await kernelIdle(page);
  await page.notebook.runCell(0, true);
}

/** The live Vision editor's marks layer in the notebook shown. */
export function marksLayer(page: LabellingPage): Locator {
  return page.locator('.jp-NotebookPanel:visible .jp-FigureChat-visionMarks');
}

/** Screen position of picture pixel edge (x, y) of a 400×300 Vision. */
export async function screenAt(
  page: LabellingPage,
  x: number,
  y: number
): Promise<{ x: number; y: number }> {
  const box = await marksLayer(page).boundingBox();
  expect(box).not.toBeNull();
  return { x: box!.x + (x / 400) * box!.width, y: box!.y + (y / 300) * box!.height };
}

export async function drag(
  page: LabellingPage,
  from: [number, number],
  to: [number, number]
): Promise<void> {
  const a = await screenAt(page, ...from);
  const b = await screenAt(page, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 8 });
  await page.mouse.up();
}

/**
 * One picture shown by ONE_PICTURE_CELL: classes and their hotkeys, a box resized by its handle
 * and by keys, a polygon and one of its vertices dragged after closing it, and the widget's undo
 * / redo (not the notebook's: `cellCount` stays).
 * Prints in cells 1 and 2.
 */
export async function editOnePicture(
  page: LabellingPage,
  print: Print,
  cellCount: () => Promise<number>
): Promise<void> {
  const marks = marksLayer(page);
  await expect(marks).toBeVisible({ timeout: 60000 });
  const classes = page.locator('.jp-NotebookPanel:visible .jp-FigureChat-visionClass');
  await expect(classes).toHaveText(['1 apple', '2 orange', '3 pear']);
  await expect(classes.nth(0)).toHaveAttribute('aria-pressed', 'true');

  // Key 2 picks "orange" for new marks; the box drawn gets it.
  await marks.focus();
  await page.keyboard.press('2');
  await expect(classes.nth(1)).toHaveAttribute('aria-pressed', 'true');
  await drag(page, [100.5, 100.5], [199.5, 179.5]);
  const box = marks.locator('[data-mark="1"]');
  await expect(box).toHaveAttribute('data-label', 'orange');
  // Key 3 relabels the selected box.
  await page.keyboard.press('3');
  await expect(box).toHaveAttribute('data-label', 'pear');

  // The bottom-right handle resizes it; Shift+→ widens by a pixel, → moves it.
  const handle = marks.locator('[data-handle="se"]');
  await expect(handle).toHaveCount(1);
  const corner = await handle.boundingBox();
  expect(corner).not.toBeNull();
  const to = await screenAt(page, 250, 220);
  await page.mouse.move(corner!.x + corner!.width / 2, corner!.y + corner!.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 8 });
  await page.mouse.up();
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('ArrowLeft');

  // A polygon: three clicks, then a click on the first vertex closes it.
  await page
    .locator('.jp-NotebookPanel:visible .jp-FigureChat-visionButton', { hasText: 'Polygon' })
    .click();
  for (const [x, y] of [
    [30, 30],
    [90, 20],
    [70, 80],
    [30, 30]
  ]) {
    const at = await screenAt(page, x, y);
    await page.mouse.click(at.x, at.y);
  }
  await expect(marks.locator('[data-mark]')).toHaveCount(2);
  const polygon = marks.locator('[data-mark="2"] polygon');
  await expect(polygon).toHaveCount(1);

  // The closed polygon is selected: its second vertex's handle drags that vertex alone.
  const drawn = await polygon.getAttribute('points');
  const vertex = marks.locator('[data-mark="2"] [data-vertex="1"]');
  await expect(vertex).toHaveCount(1);
  const grip = await vertex.boundingBox();
  expect(grip).not.toBeNull();
  const moved = await screenAt(page, 110, 40);
  await page.mouse.move(grip!.x + grip!.width / 2, grip!.y + grip!.height / 2);
  await page.mouse.down();
  await page.mouse.move(moved.x, moved.y, { steps: 8 });
  await page.mouse.up();
  await expect(polygon).not.toHaveAttribute('points', drawn!);

  const before = await print<Mark[]>(1, 'print(json.dumps(v.marks))');
  expect(before.map(m => [m.id, m.kind, m.label])).toEqual([
    [1, 'box', 'pear'],
    [2, 'polygon', 'pear']
  ]);
  const near = (value: number | undefined, expected: number) =>
    expect(Math.abs(Number(value) - expected)).toBeLessThanOrEqual(2);
  // Drawn 100..200 × 100..180, resized to 250 × 220, widened by 2 and moved left by 1.
  near(before[0].x0, 99);
  near(before[0].y0, 100);
  near(before[0].x1, 251);
  near(before[0].y1, 220);
  expect(before[0].x1! - before[0].x0!).toBeGreaterThan(140);
  expect(before[1].points).toHaveLength(3);
  for (const [i, [x, y]] of [
    [30, 30],
    [110, 40],
    [70, 80]
  ].entries()) {
    near(before[1].points![i][0], x);
    near(before[1].points![i][1], y);
  }
  for (const value of [before[0].x0, before[0].y1, ...before[1].points!.flat()]) {
    expect(Number.isInteger(value)).toBe(true);
  }

  // Undo (the widget's, not the notebook's: the cells stay as they are) and redo.
  const cells = await cellCount();
  await marks.focus();
  // The first undo puts the vertex back where it was drawn.
  await page.keyboard.press('Control+z');
  await expect(polygon).toHaveAttribute('points', drawn!);
  await page.keyboard.press('Control+z');
  await expect(marks.locator('[data-mark]')).toHaveCount(1);
  await page.keyboard.press('Control+z');
  await expect(marks.locator('[data-mark="1"]')).toHaveAttribute('data-label', 'pear');
  await page.keyboard.press('Control+Shift+z');
  await expect(marks.locator('[data-mark]')).toHaveCount(1);
  expect(await cellCount()).toBe(cells);
  const after = await print<Mark[]>(2, 'print(json.dumps(v.marks))');
  // Undos took the vertex move, the polygon and the last key move back; the redo put the move back.
  expect(after.map(m => [m.id, m.kind])).toEqual([[1, 'box']]);
  expect(after[0].x0).toBe(before[0].x0);
  expect(after[0].x1).toBe(before[0].x1);
}

/**
 * The five pictures of SET_CELL: Prev / Next / Submit and their keys, marks kept per picture,
 * and `s.annotations` and `on_submit` in the kernel. Prints in cell 1.
 */
export async function stepThroughSet(page: LabellingPage, print: Print): Promise<void> {
  const marks = marksLayer(page);
  await expect(marks).toBeVisible({ timeout: 60000 });
  const bar = page.locator('.jp-NotebookPanel:visible .jp-FigureChat-visionSet');
  const where = bar.locator('.jp-FigureChat-visionSetWhere');
  const progress = bar.locator('.jp-FigureChat-visionSetProgress');
  await expect(where).toContainText('1 of 5');
  await expect(progress).toHaveText('0 / 5 labelled');

  // Picture 1: a point, then Submit.
  let at = await screenAt(page, 50.5, 50.5);
  await page.mouse.click(at.x, at.y);
  await expect(marks.locator('[data-mark]')).toHaveCount(1);
  await bar.getByRole('button', { name: 'Submit' }).click();
  await expect(where).toContainText('2 of 5');
  await expect(progress).toHaveText('1 / 5 labelled');
  await expect(marks.locator('[data-mark]')).toHaveCount(0);

  // Keys with no mark selected: → next, ← back.
  await marks.focus();
  await page.keyboard.press('ArrowRight');
  await expect(where).toContainText('3 of 5');
  await marks.focus();
  await page.keyboard.press('ArrowLeft');
  await expect(where).toContainText('2 of 5');

  // Picture 2: a "dog" box, then Enter (Escape first: with a mark selected Enter edits its caption).
  await marks.focus();
  await page.keyboard.press('2');
  await drag(page, [100.5, 100.5], [200.5, 200.5]);
  await expect(marks.locator('[data-mark="1"]')).toHaveAttribute('data-label', 'dog');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  await expect(where).toContainText('3 of 5');
  await expect(progress).toHaveText('2 / 5 labelled');

  // Next twice to the last picture, Prev back to the second: its box is there.
  await bar.getByRole('button', { name: 'Next' }).click();
  await expect(where).toContainText('4 of 5');
  await bar.getByRole('button', { name: 'Next' }).click();
  await expect(where).toContainText('5 of 5');
  await expect(bar.getByRole('button', { name: 'Next' })).toBeDisabled();
  for (const n of [4, 3, 2]) {
    await bar.getByRole('button', { name: 'Prev' }).click();
    await expect(where).toContainText(`${n} of 5`);
  }
  await expect(marks.locator('[data-mark="1"]')).toHaveAttribute('data-label', 'dog');
  at = await screenAt(page, 300.5, 40.5);
  await page.mouse.click(at.x, at.y);
  await expect(marks.locator('[data-mark]')).toHaveCount(2);

  const read = await print<{ annotations: Record<string, Mark[]>; submitted: unknown[] }>(
    1,
    'print(json.dumps({"annotations": s.annotations, "submitted": submitted}))'
  );
  expect(read.submitted).toEqual([
    ['picture-0000.png', 1],
    ['picture-0001.png', 1]
  ]);
  expect(read.annotations['picture-0000.png'].map(m => m.kind)).toEqual(['point']);
  expect(read.annotations['picture-0001.png'].map(m => [m.kind, m.label])).toEqual([
    ['box', 'dog'],
    ['point', 'dog']
  ]);
  expect(read.annotations['picture-0002.png'] ?? []).toEqual([]);
}
