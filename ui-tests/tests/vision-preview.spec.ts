/**
 * The Vision widget's preview is not widget state: the kernel pushes it when the widget is shown,
 * and a view made later asks for it. After a page reload with the kernel still running, the live
 * widget comes back with its picture and its marks. A big picture paints from a small quick
 * preview first, loaded when it is shown and drawn at the size the sharp one takes, and the
 * view, made before the pushed previews arrive, never asks the kernel for one.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import { expect, test } from '@jupyterlab/galata';

import { createNotebookFile, openNotebook, reloadLab, setCode, SETTINGS } from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

test('a Vision widget shows its picture again after a reload with a live kernel', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/vision-preview.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await setCode(
    page,
    0,
    'import numpy as np\nfrom jupyterlab_figure_chat import Vision\nv = Vision(np.full((300, 400, 3), 120, np.uint8))\nv.mark(["100,100"])\nv'
  );
  await page.notebook.runCell(0, true);
  const live = page.locator('.jp-NotebookPanel:visible .jp-FigureChat-visionEditor');
  const picture = live.locator('.jp-FigureChat-visionStage img');
  await expect
    .poll(() => picture.evaluate(image => (image as HTMLImageElement).naturalWidth), {
      timeout: 60000
    })
    .toBe(400);
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

/** Each preview `<img>` as it was put on the page. */
interface Shown {
  natural: number;
  complete: boolean;
  width: number;
  stage: number;
  /** What the `<img>` shows (`data:image/jpeg;base64,/9j/…` and its length), for a failure. */
  src: string;
  /** How many Vision editors the notebook had then (each view makes one). */
  editors: number;
  /** When it was recorded (the page's clock, ms). */
  at: number;
  /** Index of the first entry for this same element, if it was recorded before. */
  again: number;
  /** How the record reported it. */
  record: string;
}

test('a big picture paints a small quick preview first, at its final size, never asked for', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/vision-quick.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  // A noisy 4000×3000 JPEG, like a photo: its saved PNG takes the kernel a second or more, so the
  // sharp preview (sent after it) never comes before the quick one is on the page.
  await setCode(
    page,
    0,
    [
      'import numpy as np',
      'from PIL import Image',
      'from jupyterlab_figure_chat import Vision',
      'noise = np.random.default_rng(1).integers(0, 255, (3000, 4000, 3), dtype=np.uint8)',
      "Image.fromarray(noise).save('vision-quick.jpg', quality=90)",
      "Vision('vision-quick.jpg')"
    ].join('\n')
  );
  // Record every preview image when it is inserted, before the frame that shows it.
  await page.evaluate(() => {
    const shown: Shown[] = [];
    const elements: HTMLImageElement[] = [];
    (window as unknown as { figureChatShown: Shown[] }).figureChatShown = shown;
    const notebook = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
    new MutationObserver(records => {
      for (const record of records) {
        for (const node of Array.from(record.addedNodes)) {
          const image = node instanceof HTMLElement ? (node.querySelector('img') ?? node) : null;
          if (
            image instanceof HTMLImageElement &&
            image.src &&
            image.closest('.jp-FigureChat-visionStage')
          ) {
            shown.push({
              natural: image.naturalWidth,
              complete: image.complete,
              width: image.getBoundingClientRect().width,
              stage: image.parentElement?.getBoundingClientRect().width ?? 0,
              src: `${image.src.slice(0, 40)}… (${image.src.length})`,
              editors: document.querySelectorAll('.jp-FigureChat-visionEditor').length,
              at: Math.round(performance.now()),
              again: elements.indexOf(image),
              record: `${(record.target as Element).className} +${record.addedNodes.length} -${record.removedNodes.length}`
            });
            elements.push(image);
          }
        }
      }
    }).observe(notebook ?? document.body, { childList: true, subtree: true });
    // Every request for a preview the page sends to the kernel.
    const asks: string[] = [];
    (window as unknown as { figureChatAsks: string[] }).figureChatAsks = asks;
    const panel = window.jupyterapp.shell.currentWidget as NotebookPanel;
    panel.sessionContext.session?.kernel?.anyMessage.connect((_, { msg, direction }) => {
      const data = (msg.content as { data?: { content?: { method?: string } } }).data;
      if (direction === 'send' && data?.content?.method === 'preview') {
        asks.push(msg.header.msg_id);
      }
    });
  });
  await page.notebook.runCell(0, true);
  const shown = () =>
    page.evaluate(() => (window as unknown as { figureChatShown: Shown[] }).figureChatShown);
  await expect
    .poll(async () => (await shown()).map(s => s.natural), { timeout: 60000 })
    .toEqual([500, 1600])
    .catch(async error => {
      console.log('vision-preview: previews shown', JSON.stringify(await shown(), null, 1));
      throw error;
    });
  const [quick, sharp] = await shown();
  // Loaded when it was put on the page (a data: URL loads in the microtask after `src` is set,
  // else and for a sharper one the widget waits for the decode), so the frame that shows it has
  // the pixels.
  expect(quick.complete && sharp.complete).toBe(true);
  // The quick preview takes the room of the sharp one: nothing moves when it is replaced.
  expect(quick.width).toBeGreaterThan(quick.natural);
  expect(quick.width).toBe(sharp.width);
  expect(quick.stage).toBe(sharp.stage);
  // The cell has ended (runCell waited), so the kernel has said its pushes are over: the view,
  // made from the output before the previews came, waited for them instead of asking.
  const asks = await page.evaluate(
    () => (window as unknown as { figureChatAsks: string[] }).figureChatAsks
  );
  expect(asks).toEqual([]);
  await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
});
