/**
 * Pinned figure cells (Markdown cells made by "Insert into notebook") render through the Figure
 * Chat MIME renderer, not only as their stored PNG: the figure's SVG re-checked, a view whose
 * picture is gone as the stored PNG with a notice. The notebook is written through the contents
 * API, so it is untrusted, and it renders the same after save and reload.
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
  SETTINGS
} from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const FIGURE_MIME = 'application/vnd.figure-chat.figure+json';
const PICTURE = readFileSync(join(__dirname, '..', 'fixtures', 'picture.png')).toString('base64');
const FIGURE = readFileSync(join(__dirname, '..', 'model', 'figure.svg'), 'utf8');

/** A Markdown cell as "Insert into notebook" writes it (see `pinnedCell` in src/tools/pin.ts). */
function pinnedCell(id: string, call: string, bundle: Record<string, unknown>) {
  const image = `figure-chat-${call}.png`;
  const data = `figure-chat-${call}.figure-chat.json`;
  return {
    cell_type: 'markdown',
    id,
    source: `![${call}](attachment:${image})\n\n<!-- ${data} -->`,
    metadata: { figure_chat: { source: { message: 'm1', call } } },
    attachments: {
      [image]: { 'image/png': PICTURE },
      [data]: bundle
    }
  };
}

async function expectRenderedByFigureChat(page: IJupyterLabPageFixture): Promise<void> {
  const cells = page.locator('.jp-NotebookPanel:visible .jp-MarkdownCell');
  const figure = cells.nth(0).locator('.jp-RenderedMarkdown .jp-FigureChat-pinned');
  await expect(figure.locator('.jp-FigureChat-output-mod-svg img')).toHaveAttribute(
    'src',
    /^data:image\/svg\+xml,/
  );
  const view = cells.nth(1).locator('.jp-RenderedMarkdown .jp-FigureChat-pinned');
  await expect(view.locator('.jp-FigureChat-output-notice')).toContainText('gone.png is gone');
  await expect(view.locator('img')).toHaveAttribute('src', `data:image/png;base64,${PICTURE}`);
  // The attachment image itself is no longer shown beside the renderer's output.
  await expect(cells.locator('.jp-RenderedMarkdown img')).toHaveCount(2);
}

test('pinned cells render through the MIME renderer, untrusted, after save and reload', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/pinned-cells.ipynb`;
  const content = {
    cells: [
      pinnedCell('figure', 'call_svg', {
        [FIGURE_MIME]: { version: 1, kind: 'figure', alt: 'Stages' },
        'image/svg+xml': FIGURE,
        'text/plain': 'Stages'
      }),
      pinnedCell('view', 'call_view', {
        [FIGURE_MIME]: {
          version: 1,
          kind: 'vision',
          picture: { address: 'gone.png', sha256: 'a'.repeat(64), width: 8, height: 8 },
          record: { image: 'gone.png', marks: [] },
          view: { kind: 'map' }
        },
        'text/plain': 'Map of gone.png'
      })
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
  await expectRenderedByFigureChat(page);

  await saveAndCloseAll(page);
  await reloadLab(page);
  await openNotebook(page, path);
  await expectRenderedByFigureChat(page);
});

test('a figure inserted from the chat renders through the MIME renderer at once', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/inserted.ipynb`;
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await openChat(page);
  await ask(page, '[script:svg] draw the stages');
  await chat(page).locator('.jp-FigureChat-figure').last().locator('.jp-FigureChat-insert').click();
  const pinned = page.locator(
    '.jp-NotebookPanel:visible .jp-MarkdownCell .jp-RenderedMarkdown .jp-FigureChat-pinned'
  );
  await expect(pinned.locator('.jp-FigureChat-output-mod-svg img')).toHaveAttribute(
    'src',
    /^data:image\/svg\+xml,/
  );
});
