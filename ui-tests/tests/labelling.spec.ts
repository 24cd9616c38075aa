/**
 * Labelling in the page (issue 31): classes and their hotkeys, resizing a box by a handle and by
 * keys, a polygon by its vertices, the widget's own undo and redo, and a picture set stepped
 * through with Prev / Next / Submit and their keys. Each checks what the kernel holds (`v.marks`,
 * `s.annotations`), printed by a cell as kernel-bridge.spec.ts does. The steps are shared with
 * the Notebook 7 twin (labelling-notebook7.spec.ts) in labelling-steps.ts.
 */
import { test } from '@jupyterlab/galata';

import { SETTINGS, visibleCells } from './helpers';
import {
  editOnePicture,
  labPrinter,
  ONE_PICTURE_CELL,
  runFirstCell,
  SET_CELL,
  stepThroughSet
} from './labelling-steps';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

test('classes and hotkeys, box resize by handle and keys, a polygon, and undo/redo reach v.marks', async ({
  page,
  tmpPath
}) => {
  await runFirstCell(page, `${tmpPath}/labelling.ipynb`, ONE_PICTURE_CELL);
  await editOnePicture(page, labPrinter(page), () => visibleCells(page).count());
  await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
});

test('a picture set: Prev / Next / Submit and their keys through five pictures', async ({
  page,
  tmpPath
}) => {
  await runFirstCell(page, `${tmpPath}/labelling-set.ipynb`, SET_CELL);
  await stepThroughSet(page, labPrinter(page));
  await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
});
