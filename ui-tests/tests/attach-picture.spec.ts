/**
 * Attaching a picture to a message, as a person does it: right-click an image file in the file
 * browser, or an image output in a notebook, and choose "Attach Picture to Figure Chat". The chip
 * shows in the message box, can be removed, and goes with the question: the model is told the
 * picture's address (which its vision tools take), and the stored message keeps it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import {
  ask,
  chat,
  modelRequests,
  openChat,
  openNotebook,
  resetModelLog,
  SETTINGS,
  storedTranscript
} from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const PNG = readFileSync(join(__dirname, '..', 'fixtures', 'picture.png')).toString('base64');

async function put(page: IJupyterLabPageFixture, path: string, data: unknown): Promise<void> {
  const response = await page.request.put(`/api/contents/${path}`, { data });
  expect(response.ok()).toBeTruthy();
}

/** A notebook whose one code cell has a stored image output. */
function notebookWithPicture() {
  return {
    cells: [
      {
        cell_type: 'code',
        id: 'pic',
        metadata: {},
        source: 'picture',
        execution_count: 1,
        outputs: [
          {
            output_type: 'display_data',
            data: { 'image/png': PNG, 'text/plain': '<picture>' },
            metadata: {}
          }
        ]
      }
    ],
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    nbformat: 4,
    nbformat_minor: 5
  };
}

/** Right-click `target` and choose the attach item of JupyterLab's context menu. */
async function attachFromContextMenu(
  page: IJupyterLabPageFixture,
  target: ReturnType<IJupyterLabPageFixture['locator']>
): Promise<void> {
  await target.click({ button: 'right' });
  await page.locator('.lm-Menu-item:visible', { hasText: 'Attach Picture to Figure Chat' }).click();
}

/** The last user message the scripted model was sent, as text. */
async function lastQuestion(page: IJupyterLabPageFixture): Promise<string> {
  const requests = await modelRequests(page);
  const users = requests[requests.length - 1].messages.filter(m => m.role === 'user');
  return String(users[users.length - 1].content);
}

test('a picture attached from the file browser goes with the question', async ({
  page,
  tmpPath
}) => {
  const picture = `${tmpPath}/picture.png`;
  const notebook = `${tmpPath}/files.ipynb`;
  await put(page, picture, { type: 'file', format: 'base64', content: PNG });
  await put(page, notebook, { type: 'notebook', format: 'json', content: notebookWithPicture() });
  await openNotebook(page, notebook);
  await openChat(page);
  await resetModelLog(page);

  await page.filebrowser.openDirectory(tmpPath);
  const item = page.locator('.jp-DirListing-item', { hasText: 'picture.png' });
  await attachFromContextMenu(page, item);
  const pending = chat(page).locator('.jp-FigureChat-attachments .jp-FigureChat-attachment');
  await expect(pending).toHaveCount(1);
  await expect(pending).toContainText(picture);

  // A chip can be taken back before sending.
  await pending.locator('.jp-FigureChat-attachment-remove').click();
  await expect(pending).toHaveCount(0);
  await attachFromContextMenu(page, item);
  await expect(pending).toHaveCount(1);

  await ask(page, 'What is in this picture?');
  await expect(pending).toHaveCount(0);
  const sent = chat(page).locator('.jp-FigureChat-message-mod-user').last();
  await expect(sent.locator('.jp-FigureChat-attachment')).toHaveText(picture);
  await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
    'Hello from the scripted model.'
  );
  expect(await lastQuestion(page)).toBe(
    `What is in this picture?\n\n[Attached pictures: ${picture}]`
  );
  await page.evaluate(() => window.jupyterapp.commands.execute('docmanager:save'));
  const stored = await storedTranscript(page, notebook);
  expect(stored.messages.find(m => m.role === 'user')?.attachments).toEqual([picture]);
});

test('an image output attached from its context menu goes by its cell address', async ({
  page,
  tmpPath
}) => {
  const notebook = `${tmpPath}/outputs.ipynb`;
  await put(page, notebook, { type: 'notebook', format: 'json', content: notebookWithPicture() });
  await openNotebook(page, notebook);
  await openChat(page);
  await resetModelLog(page);

  await attachFromContextMenu(page, page.locator('.jp-OutputArea-output img').first());
  const pending = chat(page).locator('.jp-FigureChat-attachments .jp-FigureChat-attachment');
  await expect(pending).toContainText('cell:pic/0');

  await ask(page, 'And this one?');
  expect(await lastQuestion(page)).toBe('And this one?\n\n[Attached pictures: cell:pic/0]');
});
