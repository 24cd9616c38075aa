/**
 * The vision tools as a person sees them: the model marks a plot a cell produced, shows a map, a
 * close-up and a sheet inline; after save, restart and reload the views are re-rendered from the
 * picture and the transcript at the chat's width, and the full views the viewer shows are
 * identical to the live ones; when a marked picture file is deleted, replay
 * says so and shows the text record instead of a wrong view.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import { restartJupyter } from '../jupyter.mjs';
import {
  ask,
  chat,
  createNotebookFile,
  displayedViewWidth,
  modelRequests,
  openChat,
  openNotebook,
  reloadLab,
  resetModelLog,
  saveAndCloseAll,
  setCode,
  SETTINGS,
  storedTranscript
} from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

/** A view's source, short enough to read in a failure. */
function digest(src: string): string {
  return `${src.slice(0, 30)}… sha256 ${createHash('sha256').update(src).digest('hex')}`;
}

async function viewSources(page: IJupyterLabPageFixture): Promise<string[]> {
  return chat(page)
    .locator('.jp-FigureChat-visionView img')
    .evaluateAll(images => images.map(image => (image as HTMLImageElement).src));
}

test('marks, a close-up and a sheet over a cell plot replay identically after a restart', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/plot.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await setCode(
    page,
    0,
    'import matplotlib.pyplot as plt\nplt.figure(figsize=(4, 3))\nplt.plot([0, 1, 2, 3], [0, 3, 1, 2])\nplt.show()'
  );
  await page.notebook.runCell(0);
  await expect(page.locator('.jp-OutputArea-output img')).toHaveCount(1, { timeout: 60000 });

  await openChat(page);
  await resetModelLog(page);
  await ask(page, '[script:vision] mark the peak and the dip');
  const views = chat(page).locator('.jp-FigureChat-visionView');
  await expect(views).toHaveCount(3);
  await expect(views.nth(0).locator('figcaption')).toContainText('#1');
  await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
    'Marked the peak and the dip.'
  );
  const live = await viewSources(page);
  expect(live.every(src => src.startsWith('data:image/png;base64,'))).toBe(true);
  // The model got the same views as compact JPEG copies; people see the PNGs.
  const sentImages = (await modelRequests(page))
    .flatMap(request => request.messages)
    .flatMap(message => (Array.isArray(message.content) ? message.content : []))
    .filter(part => part.type === 'image_url')
    .map(part => String(part.image_url?.url));
  expect(sentImages).toHaveLength(3);
  expect(sentImages.every(url => url.startsWith('data:image/jpeg;base64,/9j/'))).toBe(true);

  await saveAndCloseAll(page);
  const stored = await storedTranscript(page, path);
  const results = stored.messages.filter(m => m.role === 'tool' && m.picture);
  expect(results.length).toBe(3);
  // Fingerprints, never pixels: no PNG is stored in the conversation.
  expect(JSON.stringify(stored)).not.toContain('iVBOR');

  await restartJupyter();
  await reloadLab(page);
  await openNotebook(page, path);
  await openChat(page);
  const replayed = chat(page).locator('.jp-FigureChat-visionView img');
  await expect(replayed).toHaveCount(3);
  // Replayed views are drawn at the chat's width (none wider than the view itself)...
  const width = await displayedViewWidth(page);
  await expect
    .poll(() =>
      replayed.evaluateAll(images =>
        images.map(image => {
          const img = image as HTMLImageElement;
          return img.complete ? img.naturalWidth : 0;
        })
      )
    )
    .toEqual(
      await replayed.evaluateAll(
        (images, at) => images.map(image => Math.min(at, Number(image.getAttribute('width')))),
        width
      )
    );
  // ...and the full views the viewer fetches on a click are the live ones, byte for byte.
  for (let index = 0; index < live.length; index++) {
    await replayed.nth(index).click();
    const viewer = page.locator('.jp-FigureChat-viewer-image:visible');
    await expect
      .poll(async () => digest((await viewer.getAttribute('src')) ?? ''), { timeout: 30000 })
      .toBe(digest(live[index]));
  }
});

test('a deleted picture replays as a notice with the text record', async ({ page, tmpPath }) => {
  const picture = `${tmpPath}/picture.png`;
  const bytes = readFileSync(join(__dirname, '..', 'fixtures', 'picture.png')).toString('base64');
  const upload = await page.request.put(`/api/contents/${picture}`, {
    data: { type: 'file', format: 'base64', content: bytes }
  });
  expect(upload.ok()).toBeTruthy();
  const path = `${tmpPath}/file.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await openChat(page);
  await ask(page, `[script:vision-file] mark the corner of path=${picture}`);
  await expect(chat(page).locator('.jp-FigureChat-visionView')).toHaveCount(1);

  await saveAndCloseAll(page);
  expect((await page.request.delete(`/api/contents/${picture}`)).ok()).toBeTruthy();
  await reloadLab(page);
  await openNotebook(page, path);
  await openChat(page);
  const problem = chat(page).locator('.jp-FigureChat-vision-problem');
  await expect(problem).toContainText('is gone');
  await expect(problem).toContainText('#1 box 20,20,120,90 yellow "corner"');
  await expect(chat(page).locator('.jp-FigureChat-visionView')).toHaveCount(0);
});
