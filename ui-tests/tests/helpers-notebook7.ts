/**
 * Steps of the Notebook 7 specs (notebook7.spec.ts, labelling-notebook7.spec.ts): Notebook 7 is
 * not JupyterLab, so they drive plain Playwright pages, not Galata's notebook fixture. Writing a
 * notebook through the contents API is shared with the JupyterLab benchmarks (bench/).
 */
import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';

import { SERVER_URL } from './helpers';
import { kernelIdle } from './labelling-steps';

/** The cells of the notebook shown. */
export const NB7_CELLS = '.jp-NotebookPanel .jp-Notebook .jp-Cell';

/**
 * Write a notebook of one code cell per source (ids `<prefix>-<index>`) through the contents API:
 * typed into the editor, indented Python would be re-indented. With a kernelspec, so it opens
 * without asking for a kernel.
 */
export async function putNotebook(
  request: APIRequestContext,
  path: string,
  sources: string[],
  prefix: string
): Promise<void> {
  const content = {
    cells: sources.map((source, index) => ({
      id: `${prefix}-${index}`,
      cell_type: 'code',
      source,
      metadata: {},
      outputs: [],
      execution_count: null
    })),
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    nbformat: 4,
    nbformat_minor: 5
  };
  const created = await request.put(`${SERVER_URL}api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content }
  });
  expect(created.ok()).toBeTruthy();
}

/**
 * Open a notebook in Notebook 7's notebook view and wait for Figure Chat and for the kernel: a
 * cell run before the session has its kernel is dropped (the prompt stays "[ ]").
 */
export async function openInNotebook7(page: Page, path: string): Promise<void> {
  await page.goto(`${SERVER_URL}notebooks/${path}`);
  await page.waitForFunction(
    () => window.jupyterapp?.commands.hasCommand('figure-chat:open') === true,
    undefined,
    { timeout: 60000 }
  );
  await kernelIdle(page);
}

/** Run one cell as a person does: click into it, Shift+Enter, wait for its prompt number. */
export async function runCellAt(page: Page, index: number): Promise<void> {
  const cell = page.locator(NB7_CELLS).nth(index);
  await cell.locator('.jp-InputArea-editor').click();
  await page.keyboard.press('Shift+Enter');
  await expect(cell.locator('.jp-InputPrompt')).toHaveText(/\[\d+\]/, { timeout: 60000 });
}

/** Run the first cell, which shows a Vision widget, and bring its marks layer into view. */
export async function runVisionCell(page: Page): Promise<Locator> {
  await runCellAt(page, 0);
  const marks = page.locator('.jp-FigureChat-visionMarks');
  await expect(marks).toBeVisible({ timeout: 60000 });
  await marks.evaluate(node => node.scrollIntoView({ block: 'center' }));
  return marks;
}
