/**
 * Model servers as they really answer (issue 8), as a person sees it: llama.cpp refusing the
 * views falls back to text and the turn completes, with a notice; a `<think>` reply shows a
 * collapsed Thinking block and a clean answer; a model without tool support is retried without
 * tools and answers, with a notice. The scripted model server replays each server's refusal.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import {
  ask,
  chat,
  createNotebookFile,
  modelRequests,
  openChat,
  openNotebook,
  resetModelLog,
  SETTINGS
} from './helpers';

test.use({
  mockSettings: {
    ...SETTINGS,
    'jupyterlab-figure-chat:plugin': {
      ...SETTINGS['jupyterlab-figure-chat:plugin'],
      acceptsImages: 'auto'
    }
  },
  kernels: null,
  sessions: null,
  terminals: null
});

async function openChatOn(page: IJupyterLabPageFixture, path: string): Promise<void> {
  await createNotebookFile(page, path);
  await openNotebook(page, path);
  await openChat(page);
  await resetModelLog(page);
}

function lastAnswer(page: IJupyterLabPageFixture) {
  return chat(page).locator('.jp-FigureChat-message-mod-assistant').last();
}

test("llama.cpp's image refusal falls back to text and the turn completes", async ({
  page,
  tmpPath
}) => {
  const picture = `${tmpPath}/picture.png`;
  const bytes = readFileSync(join(__dirname, '..', 'fixtures', 'picture.png')).toString('base64');
  const upload = await page.request.put(`/api/contents/${picture}`, {
    data: { type: 'file', format: 'base64', content: bytes }
  });
  expect(upload.ok()).toBeTruthy();
  await openChatOn(page, `${tmpPath}/refusal.ipynb`);

  await ask(page, `[script:llamacpp-image-refusal] mark the corner of path=${picture}`);
  await expect(chat(page).locator('.jp-FigureChat-notice')).toHaveText(
    "This model can't see images; views are described in text."
  );
  await expect(lastAnswer(page)).toContainText('Marked the corner; I read the marks as text.');
  await expect(chat(page).locator('.jp-FigureChat-error')).toHaveCount(0);
  // The person still sees the view the model could not.
  await expect(chat(page).locator('.jp-FigureChat-visionView')).toHaveCount(1);
  const sent = (await modelRequests(page)).map(request =>
    JSON.stringify(request.messages).includes('"image_url"')
  );
  expect(sent).toEqual([false, true, false]);
  const retried = (await modelRequests(page))[2].messages.filter(m => m.role === 'tool');
  expect(String(retried[0].content)).toContain('not sent to it');
});

test('a <think> reply shows a collapsed Thinking block and a clean answer', async ({
  page,
  tmpPath
}) => {
  await openChatOn(page, `${tmpPath}/think.ipynb`);
  await ask(page, '[script:think] say hello');
  const thinking = lastAnswer(page).locator('details.jp-FigureChat-thinking');
  await expect(thinking).toHaveCount(1);
  await expect(thinking).not.toHaveAttribute('open');
  await expect(thinking.locator('summary')).toHaveText('Thinking');
  await expect(thinking.locator('.jp-FigureChat-thinking-text')).toBeHidden();
  const answer = lastAnswer(page).locator('.jp-FigureChat-markdown');
  await expect(answer).toHaveText('Hello from a thinking model.');
  await expect(lastAnswer(page)).not.toContainText('think>');

  await thinking.locator('summary').click();
  await expect(thinking.locator('.jp-FigureChat-thinking-text')).toHaveText(
    'The user wants a greeting.'
  );
});

test('a model without tool support is retried without tools and answers', async ({
  page,
  tmpPath
}) => {
  await openChatOn(page, `${tmpPath}/no-tools.ipynb`);
  await ask(page, '[script:no-tools] hello');
  await expect(chat(page).locator('.jp-FigureChat-notice')).toContainText(
    'This model has no tool support'
  );
  await expect(lastAnswer(page)).toContainText('Answered without tools.');
  await expect(chat(page).locator('.jp-FigureChat-error')).toHaveCount(0);
  const requests = await modelRequests(page);
  expect(requests.map(request => Array.isArray(request.tools))).toEqual([true, false]);
});
