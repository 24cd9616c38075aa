/**
 * present_svg as a person sees it: the figure appears inline with its caption, loads nothing from
 * the network, survives switching notebooks, saving, restarting and reloading byte for byte, and
 * an invalid SVG stays a failed card with no image.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import { restartJupyter } from '../jupyter.mjs';
import {
  ask,
  chat,
  createNotebookFile,
  MODEL_URL,
  openChat,
  openNotebook,
  reloadLab,
  saveAndCloseAll,
  SETTINGS,
  storedTranscript
} from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const PREFIX = 'data:image/svg+xml,';

async function figureSources(page: IJupyterLabPageFixture): Promise<string[]> {
  return chat(page)
    .locator('.jp-FigureChat-figure-image')
    .evaluateAll(images => images.map(image => (image as HTMLImageElement).src));
}

test('a figure shows inline, loads nothing, and replays identically after a restart', async ({
  page,
  tmpPath,
  baseURL
}) => {
  const requests: string[] = [];
  page.on('request', request => requests.push(request.url()));

  await page.notebook.createNew('figures.ipynb');
  await openChat(page);
  requests.length = 0;
  await ask(page, '[script:svg] sketch the pipeline');
  const figure = chat(page).locator('.jp-FigureChat-figure');
  await expect(figure).toHaveCount(1);
  await expect(figure.locator('figcaption')).toHaveText('Three stages: load, fit, plot');
  await expect(figure.locator('img')).toHaveAttribute('alt', 'Three stages: load, fit, plot');
  const box = await figure.locator('img').boundingBox();
  expect(box?.height ?? 0).toBeGreaterThan(0);
  expect(box?.height ?? 1000).toBeLessThanOrEqual(480);

  // Nothing left the page for the figure: only Jupyter's own API and the model server were asked.
  const foreign = requests.filter(
    url =>
      !url.startsWith(baseURL ?? 'http://127.0.0.1:8888') &&
      !url.startsWith(MODEL_URL) &&
      !url.startsWith('data:')
  );
  expect(foreign).toEqual([]);
  expect(requests.filter(url => url.startsWith('data:'))).toEqual([]);

  await page.notebook.save();
  const stored = await storedTranscript(page, `${tmpPath}/figures.ipynb`);
  const assistant = stored.messages.find(
    m => m.role === 'assistant' && Array.isArray(m.tool_calls)
  );
  const call = (assistant?.tool_calls as Array<{ arguments: { svg: string } }>)[0];
  const tool = stored.messages.find(m => m.role === 'tool');
  expect(tool?.content).toBe('SVG presented inline: Three stages: load, fit, plot');
  // Stored once: the SVG is only in the call's arguments.
  expect(JSON.stringify(stored).split('<svg').length - 1).toBe(1);

  const [source] = await figureSources(page);
  expect(source.startsWith(PREFIX)).toBe(true);
  expect(decodeURIComponent(source.slice(PREFIX.length))).toBe(call.arguments.svg);

  await createNotebookFile(page, `${tmpPath}/other.ipynb`);
  await openNotebook(page, `${tmpPath}/other.ipynb`);
  await expect(chat(page).locator('.jp-FigureChat-figure')).toHaveCount(0);
  await openNotebook(page, `${tmpPath}/figures.ipynb`);
  await expect(chat(page).locator('.jp-FigureChat-figure')).toHaveCount(1);
  expect(await figureSources(page)).toEqual([source]);

  await saveAndCloseAll(page);
  await restartJupyter();
  await reloadLab(page);
  await openNotebook(page, `${tmpPath}/figures.ipynb`);
  await openChat(page);
  await expect(chat(page).locator('.jp-FigureChat-figure')).toHaveCount(1);
  expect(await figureSources(page)).toEqual([source]);

  await ask(page, '[script:bad-svg] try a scripted figure');
  const failed = chat(page).locator('.jp-FigureChat-toolCard[data-tool="present_svg"]');
  await expect(failed).toHaveAttribute('data-state', 'failed');
  await failed.locator('summary').click();
  await expect(failed.locator('.jp-FigureChat-toolCard-result')).toContainText('script');
  await expect(chat(page).locator('.jp-FigureChat-figure')).toHaveCount(1);
});

test('figures given in Hermes, DSML and GLM text and in a mixed batch all show', async ({
  page
}) => {
  await page.notebook.createNew('syntaxes.ipynb');
  await openChat(page);
  await ask(page, '[script:svg-hermes] one');
  await ask(page, '[script:svg-dsml] two');
  await ask(page, '[script:svg-glm] three');
  await ask(page, '[script:mixed] four');
  await expect(chat(page).locator('.jp-FigureChat-figure figcaption')).toHaveText([
    'Hermes figure',
    'DSML figure',
    'GLM figure',
    'Mixed figure'
  ]);
  const text = await chat(page).locator('.jp-FigureChat-messages').innerText();
  expect(text).not.toContain('<tool_call');
  expect(text).not.toContain('\uff5cDSML\uff5c');
  expect(text).not.toContain('invoke');
  expect(text).not.toContain('arg_key');
  const sources = await figureSources(page);
  expect(new Set(sources).size).toBe(1);
  // The mixed batch keeps call order: the notebook_read card comes before the figure.
  const order = await chat(page)
    .locator('.jp-FigureChat-toolCard, .jp-FigureChat-figure')
    .evaluateAll(nodes => nodes.map(n => (n as HTMLElement).dataset.tool ?? 'figure'));
  expect(order.slice(-2)).toEqual(['notebook_read', 'figure']);
});
