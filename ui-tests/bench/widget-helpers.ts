/**
 * Shared steps of the widget benchmarks (widget-click.spec.ts, widget-paint.spec.ts): a notebook
 * with cells set and run from the page, generated photo-sized pictures, and the statistics they
 * print.
 */
import { expect, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import { openNotebook } from '../tests/helpers';
import { putNotebook } from '../tests/helpers-notebook7';

/**
 * Python defining `make_picture(path, seed)`: a 4000×3000 JPEG (quality 90) with smooth shapes
 * and sensor-like noise, so its size (about 4 MB) and decoding cost are those of a camera photo.
 */
export const MAKE_PICTURE = `
import numpy as np
from PIL import Image

def make_picture(path, seed, width=4000, height=3000):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    base = 128 + 60 * np.sin(x / (180 + 7 * seed)) * np.cos(y / (140 + 5 * seed))
    rgb = np.stack([base + 30 * np.sin(y / 90), base, base + 30 * np.cos(x / 70)], axis=-1)
    rgb += rng.normal(0, 6, rgb.shape).astype(np.float32)
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(path, quality=90)
`;

/**
 * Create a notebook with one code cell per source and open it (cells are run later, one by one).
 * Written through the contents API: typed into the editor, indented Python would be re-indented.
 */
export async function notebookWith(
  page: IJupyterLabPageFixture,
  path: string,
  sources: string[]
): Promise<void> {
  await putNotebook(page.request, path, sources, 'bench');
  await openNotebook(page, path);
}

/**
 * Run one cell and wait until its execution ends (its prompt shows a number). It waits first for
 * the notebook's kernel to be connected and idle: run as soon as the notebook opened, the cell was
 * sometimes never run (1 benchmark in 5 waited with an idle kernel that had been sent nothing),
 * and Galata's `runCell`, which waits for the execution count without a time limit, held it for
 * the whole test timeout. Here a cell that never runs fails after 240 s, saying so.
 */
export async function runCell(page: IJupyterLabPageFixture, index: number): Promise<void> {
  await page.waitForFunction(
    () => {
      const panel = window.jupyterapp.shell.currentWidget as unknown as {
        sessionContext?: {
          session?: { kernel?: { connectionStatus: string; status: string } | null } | null;
        };
      };
      const kernel = panel?.sessionContext?.session?.kernel;
      return kernel?.connectionStatus === 'connected' && kernel.status === 'idle';
    },
    undefined,
    { timeout: 120000 }
  );
  expect(await page.notebook.selectCells(index)).toBe(true);
  await page.keyboard.press('Control+Enter');
  const prompt = page
    .locator('.jp-NotebookPanel:visible .jp-Notebook .jp-Cell')
    .nth(index)
    .locator('.jp-InputPrompt');
  await expect(prompt, `cell ${index} did not run`).toHaveText(/\[\d+\]/, { timeout: 240000 });
}

/** Median and 95th percentile (nearest rank) of a list of numbers. */
export function stats(values: number[]): { median: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, p95: rank(0.95), max: sorted[sorted.length - 1] };
}

/** A number of milliseconds as printed. */
export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}
