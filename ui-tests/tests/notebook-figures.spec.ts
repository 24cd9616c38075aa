/**
 * Figures in the notebook, as a person sees them: "Insert into notebook" puts a chat figure and a
 * vision view below the active cell; Run All and Clear All Outputs leave both; after save and
 * reload both still render. Outputs carrying the Figure Chat bundle render through the MIME
 * renderer, re-checked, and fall back to the stored PNG with a notice when the picture is gone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import {
  ask,
  chat,
  createNotebookFile,
  openChat,
  openNotebook,
  reloadLab,
  saveAndCloseAll,
  SETTINGS,
  typeInCell
} from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const FIGURE_MIME = 'application/vnd.figure-chat.figure+json';
const PICTURE = readFileSync(join(__dirname, '..', 'fixtures', 'picture.png')).toString('base64');
const FIGURE = readFileSync(join(__dirname, '..', 'model', 'figure.svg'), 'utf8');

/** The pinned images in the notebook that have loaded (a broken image has no natural width). */
function pinnedImages(page: IJupyterLabPageFixture) {
  return page.locator(
    '#jp-main-dock-panel .jp-NotebookPanel:visible .jp-MarkdownCell .jp-RenderedMarkdown img'
  );
}

async function loadedCount(page: IJupyterLabPageFixture): Promise<number> {
  return pinnedImages(page).evaluateAll(
    images =>
      images.filter(
        image =>
          (image as HTMLImageElement).complete && (image as HTMLImageElement).naturalWidth > 0
      ).length
  );
}

async function uploadPicture(page: IJupyterLabPageFixture, path: string): Promise<void> {
  const upload = await page.request.put(`/api/contents/${path}`, {
    data: { type: 'file', format: 'base64', content: PICTURE }
  });
  expect(upload.ok()).toBeTruthy();
}

async function run(page: IJupyterLabPageFixture, command: string): Promise<void> {
  await page.evaluate(id => window.jupyterapp.commands.execute(id), command);
}

test('a figure and a view inserted into the notebook survive Run All, Clear All Outputs, save and reload', async ({
  page,
  tmpPath
}) => {
  const picture = `${tmpPath}/picture.png`;
  await uploadPicture(page, picture);
  const path = `${tmpPath}/pinned.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  expect(await page.notebook.setCellType(0, 'markdown')).toBe(true);
  await typeInCell(page, 0, '# Results');
  await openChat(page);

  await ask(page, '[script:svg] draw the stages');
  const figure = chat(page).locator('.jp-FigureChat-figure').last();
  await figure.locator('.jp-FigureChat-insert').click();
  await expect(pinnedImages(page)).toHaveCount(1);

  await ask(page, `[script:vision-file] mark the corner of path=${picture}`);
  const view = chat(page).locator('.jp-FigureChat-visionView').last();
  await view.locator('.jp-FigureChat-insert').click();
  await expect(pinnedImages(page)).toHaveCount(2);
  await expect.poll(() => loadedCount(page)).toBe(2);
  await expect(pinnedImages(page).nth(0)).toHaveAttribute('alt', 'Three stages: load, fit, plot');

  await run(page, 'notebook:run-all-cells');
  await run(page, 'notebook:clear-all-cell-outputs');
  await expect(pinnedImages(page)).toHaveCount(2);
  await expect.poll(() => loadedCount(page)).toBe(2);

  await saveAndCloseAll(page);
  const response = await page.request.get(`/api/contents/${path}?content=1`);
  const saved = (await response.json()) as {
    content: {
      cells: Array<{
        cell_type: string;
        metadata: { figure_chat?: { source: { message: string; call: string } } };
        attachments?: Record<string, Record<string, unknown>>;
      }>;
    };
  };
  const pinned = saved.content.cells.filter(cell => cell.metadata.figure_chat);
  expect(pinned.map(cell => cell.cell_type)).toEqual(['markdown', 'markdown']);
  // In notebook order: the view was inserted below the figure's cell (the active cell then).
  expect(pinned.map(cell => cell.metadata.figure_chat?.source.call)).toEqual([
    'call_svg',
    'call_f1'
  ]);
  for (const cell of pinned) {
    const entries = Object.values(cell.attachments ?? {});
    expect(entries.some(entry => typeof entry['image/png'] === 'string')).toBe(true);
    expect(entries.some(entry => FIGURE_MIME in entry)).toBe(true);
  }
  expect(
    Object.values(pinned[0].attachments ?? {}).some(entry => entry['image/svg+xml'] === FIGURE)
  ).toBe(true);

  await reloadLab(page);
  await openNotebook(page, path);
  await expect(pinnedImages(page)).toHaveCount(2);
  await expect.poll(() => loadedCount(page)).toBe(2);
});

test('bundle outputs render re-checked, and fall back to the stored PNG when the picture is gone', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/outputs.ipynb`;
  const output = (data: Record<string, unknown>) => ({
    output_type: 'display_data',
    data,
    metadata: {}
  });
  const content = {
    cells: [
      {
        cell_type: 'code',
        id: 'figure',
        source: '',
        metadata: {},
        execution_count: null,
        outputs: [
          output({
            [FIGURE_MIME]: { version: 1, kind: 'figure', alt: 'Stages' },
            'image/svg+xml': FIGURE,
            'image/png': PICTURE,
            'text/plain': 'Stages'
          })
        ]
      },
      {
        cell_type: 'code',
        id: 'view',
        source: '',
        metadata: {},
        execution_count: null,
        outputs: [
          output({
            [FIGURE_MIME]: {
              version: 1,
              kind: 'vision',
              picture: { address: 'gone.png', sha256: 'a'.repeat(64), width: 8, height: 8 },
              record: { image: 'gone.png', marks: [] },
              view: { kind: 'map' }
            },
            'image/png': PICTURE,
            'text/plain': 'Map of gone.png'
          })
        ]
      }
    ],
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    nbformat: 4,
    nbformat_minor: 5
  };
  const put = await page.request.put(`/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content }
  });
  expect(put.ok()).toBeTruthy();
  await openNotebook(page, path);
  const outputs = page.locator('.jp-NotebookPanel:visible .jp-FigureChat-output');
  await expect(outputs).toHaveCount(2);
  const svg = page.locator('.jp-NotebookPanel:visible .jp-FigureChat-output-mod-svg img');
  await expect(svg).toHaveAttribute('src', /^data:image\/svg\+xml,/);
  const fallback = page.locator('.jp-NotebookPanel:visible .jp-FigureChat-output-mod-fallback');
  await expect(fallback.locator('.jp-FigureChat-output-notice')).toContainText('gone.png is gone');
  await expect(fallback.locator('img')).toHaveAttribute('src', `data:image/png;base64,${PICTURE}`);
});

test('the viewer fits to width, zooms with buttons and the wheel, and downloads PNG and SVG', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/viewer.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await openChat(page);
  await ask(page, '[script:svg] draw the stages');
  await chat(page).locator('.jp-FigureChat-figure-image').last().click();
  const viewer = page.locator('.jp-FigureChat-viewer:visible');
  await expect(viewer).toHaveAttribute('data-zoom', /\d/);
  const zoom = async (): Promise<number> => Number(await viewer.getAttribute('data-zoom'));
  const fitted = await zoom();
  const sizes = await viewer.evaluate(node => ({
    image: (node.querySelector('img') as HTMLImageElement).getBoundingClientRect().width,
    tab: node.clientWidth
  }));
  expect(sizes.image).toBeGreaterThan(sizes.tab - 40);
  expect(sizes.image).toBeLessThanOrEqual(sizes.tab);

  const toolbar = page.locator('.jp-FigureChat-viewerPanel:visible');
  await toolbar.getByRole('button', { name: '+', exact: true }).click();
  await expect.poll(zoom).toBeCloseTo(fitted * 1.25, 2);
  await viewer.hover();
  await page.mouse.wheel(0, -120);
  await expect.poll(zoom).toBeCloseTo(fitted * 1.25 * 1.25, 2);
  await toolbar.getByRole('button', { name: '1:1', exact: true }).click();
  await expect.poll(zoom).toBe(1);
  // A figure stays vector at every zoom: the viewer shows the SVG itself.
  await expect(viewer.locator('img')).toHaveAttribute('src', /^data:image\/svg\+xml,/);
  await expect(viewer.locator('.jp-FigureChat-viewer-status')).toContainText('vector');

  const [png] = await Promise.all([
    page.waitForEvent('download'),
    toolbar.getByRole('button', { name: 'PNG', exact: true }).click()
  ]);
  expect(png.suggestedFilename()).toMatch(/\.png$/);
  const pngBytes = readFileSync(await png.path());
  expect(pngBytes.subarray(1, 4).toString()).toBe('PNG');
  // Drawn at twice the figure's size (360×120), so it stays sharp.
  expect(pngBytes.readUInt32BE(16)).toBe(720);
  const [svg] = await Promise.all([
    page.waitForEvent('download'),
    toolbar.getByRole('button', { name: 'SVG', exact: true }).click()
  ]);
  expect(svg.suggestedFilename()).toMatch(/\.svg$/);
  expect(readFileSync(await svg.path(), 'utf8')).toBe(FIGURE);
});

test('in the dark theme a transparent figure gets a light backing, the figure unchanged', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/dark.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await openChat(page);
  await ask(page, '[script:svg] draw the stages');
  await page.theme.setDarkTheme();
  await expect(page.locator('body')).toHaveAttribute('data-jp-theme-light', 'false');
  const image = chat(page).locator('.jp-FigureChat-figure-image').last();
  await expect(image).toHaveAttribute('src', /^data:image\/svg\+xml,/);
  const shot = (await image.screenshot()).toString('base64');
  // The figure's top-left corner is transparent: what shows there is the backing.
  const corner = await page.evaluate(async data => {
    const picture = new Image();
    picture.src = `data:image/png;base64,${data}`;
    await picture.decode();
    const canvas = document.createElement('canvas');
    canvas.width = picture.naturalWidth;
    canvas.height = picture.naturalHeight;
    const context = canvas.getContext('2d') as CanvasRenderingContext2D;
    context.drawImage(picture, 0, 0);
    return Array.from(context.getImageData(2, 2, 1, 1).data);
  }, shot);
  expect(Math.min(corner[0], corner[1], corner[2])).toBeGreaterThan(200);
  // Only the picture gets the backing; the card around it keeps the dark theme.
  const card = await chat(page)
    .locator('.jp-FigureChat-figure')
    .last()
    .evaluate(node => getComputedStyle(node).backgroundColor);
  expect(card).not.toBe('rgb(255, 255, 255)');
});

test('vision calls without views (vision_list, view "none") complete, live and replayed', async ({
  page,
  tmpPath
}) => {
  const picture = `${tmpPath}/quiet.png`;
  await uploadPicture(page, picture);
  const path = `${tmpPath}/quiet.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await openChat(page);
  await ask(page, `[script:vision-quiet] mark quietly path=${picture}`);
  const cards = chat(page).locator('.jp-FigureChat-vision');
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0)).toHaveAttribute('data-views', 'none');
  await expect(cards.nth(1)).toHaveAttribute('data-views', 'none');
  await expect(chat(page).locator('.jp-FigureChat-vision-pending')).toHaveCount(0);

  await saveAndCloseAll(page);
  await reloadLab(page);
  await openNotebook(page, path);
  await openChat(page);
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(1)).toHaveAttribute('data-views', 'none');
  await expect(chat(page).locator('.jp-FigureChat-vision-pending')).toHaveCount(0);
});
