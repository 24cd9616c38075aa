/**
 * The chat's Export button writes `<notebook>.chat.md` next to the notebook with the figure as an
 * `.svg` file and the vision view as a `.png` file in `<notebook>.chat-assets/`, referenced as
 * images, and opens the Markdown preview, which shows them. A second export asks before replacing.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { expect, test } from '@jupyterlab/galata';

import { chat, openChat, openNotebook, SERVER_URL, SETTINGS } from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const PICTURE = readFileSync(join(__dirname, '..', 'fixtures', 'picture.png'));
const FIGURE = readFileSync(join(__dirname, '..', 'model', 'figure.svg'), 'utf8');

test('Export writes the Markdown with the figure and the view as files the preview shows', async ({
  page,
  tmpPath
}) => {
  const address = `${tmpPath}/picture.png`;
  const put = (path: string, data: Record<string, unknown>) =>
    page.request.put(`${SERVER_URL}api/contents/${path}`, { data });
  expect(
    (
      await put(address, { type: 'file', format: 'base64', content: PICTURE.toString('base64') })
    ).ok()
  ).toBeTruthy();
  const picture = {
    address,
    sha256: createHash('sha256').update(PICTURE).digest('hex'),
    width: 200,
    height: 150
  };
  const messages = [
    { id: 'u1', role: 'user', content: 'Draw the stages and mark the picture' },
    {
      id: 'a1',
      role: 'assistant',
      content: 'Here they are.',
      status: 'completed',
      tool_calls: [
        { id: 'call_svg', name: 'present_svg', arguments: { svg: FIGURE, alt: 'Stages' } },
        {
          id: 'call_mark',
          name: 'vision_mark',
          arguments: { image: address, marks: [{ at: '20,20,100,80', caption: 'left part' }] }
        }
      ]
    },
    { id: 't1', role: 'tool', tool_call_id: 'call_svg', status: 'completed', content: 'shown' },
    {
      id: 't2',
      role: 'tool',
      tool_call_id: 'call_mark',
      status: 'completed',
      content: 'marked #1',
      picture
    }
  ];
  const notebookPath = `${tmpPath}/analysis.ipynb`;
  expect(
    (
      await put(notebookPath, {
        type: 'notebook',
        format: 'json',
        content: {
          cells: [],
          metadata: {
            kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
            figure_chat: { version: 1, messages }
          },
          nbformat: 4,
          nbformat_minor: 5
        }
      })
    ).ok()
  ).toBeTruthy();

  await openNotebook(page, notebookPath);
  await openChat(page);
  // The conversation replayed: the figure and the view are in the chat.
  await expect(chat(page).locator('.jp-FigureChat-visionView img')).toHaveCount(1);
  await page.locator('#jp-figure-chat-sidebar button[data-action="export"]').click();

  // The preview opens and shows both pictures, loaded from the files next to the Markdown.
  const preview = page.locator('.jp-MarkdownViewer:visible .jp-RenderedMarkdown');
  await expect(preview.locator('img')).toHaveCount(2);
  await expect
    .poll(() =>
      preview
        .locator('img')
        .evaluateAll(images =>
          images.map(
            image =>
              (image as HTMLImageElement).complete && (image as HTMLImageElement).naturalWidth > 0
          )
        )
    )
    .toEqual([true, true]);

  const markdown = await page.request.get(
    `${SERVER_URL}api/contents/${tmpPath}/analysis.chat.md?content=1&format=text&type=file`
  );
  expect(markdown.ok()).toBeTruthy();
  const text = ((await markdown.json()) as { content: string }).content;
  const links = Array.from(text.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g), match =>
    decodeURIComponent(match[1])
  );
  expect(links).toHaveLength(2);
  expect(links[0]).toMatch(/^analysis\.chat-assets\/analysis-figure-001-call_svg\.svg$/);
  expect(links[1]).toMatch(/^analysis\.chat-assets\/analysis-view-001-call_mark-1\.png$/);
  expect(text).not.toContain('```svg');
  const svg = await page.request.get(
    `${SERVER_URL}api/contents/${tmpPath}/${links[0]}?content=1&format=text&type=file`
  );
  expect(((await svg.json()) as { content: string }).content).toBe(FIGURE);
  const png = await page.request.get(
    `${SERVER_URL}api/contents/${tmpPath}/${links[1]}?content=1&format=base64&type=file`
  );
  const bytes = Buffer.from(((await png.json()) as { content: string }).content, 'base64');
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');

  // Exporting again asks first; Cancel leaves the Markdown as it was.
  await page.locator('#jp-figure-chat-sidebar button[data-action="export"]').click();
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog).toContainText('analysis.chat.md exists already');
  await dialog.locator('button', { hasText: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
});
