/**
 * The chat as a person uses it (issue 11): remote resources in chat Markdown make no request until
 * clicked, counted by a loopback listener standing in for the remote host; the view follows a
 * streaming answer and offers "jump to latest"; New can be undone and never replaces a newer
 * version's conversation; failures keep the question with Retry and a settings link; code blocks
 * copy and insert; the panel shows the model and example prompts; the shortcut collides with
 * nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { expect, test } from '@jupyterlab/galata';

import { chat, createNotebookFile, openChat, openNotebook, reloadLab, SETTINGS } from './helpers';

test.use({ mockSettings: SETTINGS, autoGoto: true });

/** A loopback HTTP listener that counts what reaches it. */
async function remoteHost(): Promise<{ server: Server; port: number; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'image/gif' });
    res.end(Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64'));
  });
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port, paths };
}

test('remote images, media, CSS url() and forms load nothing until a click', async ({
  page,
  tmpPath
}) => {
  const remote = await remoteHost();
  try {
    await page.notebook.createNew('privacy.ipynb');
    await openChat(page);
    const view = chat(page);
    await view
      .locator('.jp-FigureChat-input')
      .fill(`[script:remote-media] leak-port=${remote.port}`);
    await view.locator('.jp-FigureChat-input').press('Enter');
    await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
    const answer = view.locator('.jp-FigureChat-message-mod-assistant').last();
    await expect(answer).toContainText('a link');
    const placeholders = answer.locator('.jp-FigureChat-blocked');
    await expect(placeholders).toHaveCount(3); // the image, the video, the audio
    await expect(placeholders.first()).toContainText(`127.0.0.1:${remote.port}`);
    await expect(answer.locator('form, button:text("Go"), video, audio, [autoplay]')).toHaveCount(
      0
    );
    await expect(answer.locator('[style*="url("]')).toHaveCount(0);
    await expect(answer.locator('a', { hasText: 'a link' })).toHaveAttribute('target', '_blank');
    await expect(answer.locator('img[src^="data:image/gif"]')).toHaveCount(1);

    // Open a stranger's notebook holding the same reply: still nothing.
    await page.notebook.save();
    const stored = await page.request.get(`/api/contents/${tmpPath}/privacy.ipynb?content=1`);
    const notebook = (await stored.json()).content;
    await createNotebookFile(page, `${tmpPath}/stranger.ipynb`);
    await page.request.put(`/api/contents/${tmpPath}/stranger.ipynb`, {
      data: { type: 'notebook', format: 'json', content: notebook }
    });
    await openNotebook(page, `${tmpPath}/stranger.ipynb`);
    await expect(chat(page).locator('.jp-FigureChat-blocked')).toHaveCount(3);
    expect(remote.paths).toEqual([]);

    // A click loads that one image, and only it.
    await chat(page).locator('.jp-FigureChat-blocked[data-kind="image"]').click();
    await expect(chat(page).locator(`img[src*="127.0.0.1:${remote.port}/pixel.png"]`)).toHaveCount(
      1
    );
    await expect.poll(() => remote.paths.length).toBe(1);
    expect(remote.paths[0]).toContain('/pixel.png');
  } finally {
    remote.server.close();
  }
});

test('the view follows a streaming answer, stops when scrolled up, and offers the jump', async ({
  page
}) => {
  await page.notebook.createNew('scroll.ipynb');
  await openChat(page);
  const view = chat(page);
  const scroller = view.locator('.jp-FigureChat-scroller');
  const gap = () =>
    scroller.evaluate(node => node.scrollHeight - node.scrollTop - node.clientHeight);

  await view.locator('.jp-FigureChat-input').fill('[script:long] tell me everything');
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
  await expect(view.locator('.jp-FigureChat-message-mod-assistant')).toContainText('Paragraph 89');
  await expect.poll(gap).toBeLessThan(50);

  // Scrolled up while the next answer streams: the view stays put and offers the jump.
  await view.locator('.jp-FigureChat-input').fill('[script:slow] keep going');
  await view.locator('.jp-FigureChat-input').press('Enter');
  const streaming = view.locator('.jp-FigureChat-message-mod-assistant').last();
  await expect(streaming).toContainText('word1');
  await expect.poll(gap).toBeLessThan(50);
  await scroller.hover();
  await page.mouse.wheel(0, -3000);
  await expect(view.locator('.jp-FigureChat-jump')).toBeVisible();
  await expect(streaming).toContainText('word8');
  expect(await gap()).toBeGreaterThan(500);
  await view.locator('.jp-FigureChat-jump').click();
  await expect.poll(gap).toBeLessThan(50);
  await expect(view.locator('.jp-FigureChat-jump')).toBeHidden();
  // Still following: new words keep the end in view.
  await expect(streaming).toContainText('word12');
  await expect.poll(gap).toBeLessThan(50);
  await view.locator('.jp-FigureChat-input').press('Escape');
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');

  // Reopened: it opens at the newest message.
  await page.notebook.save();
  await page.notebook.close();
  await page.notebook.open('scroll.ipynb');
  await openChat(page);
  await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant').first()).toContainText(
    'Paragraph 89'
  );
  await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
    'word12'
  );
  await expect.poll(gap).toBeLessThan(50);
});

test('New can be undone, and a newer version’s conversation is never replaced', async ({
  page,
  tmpPath
}) => {
  await page.notebook.createNew('undo.ipynb');
  await openChat(page);
  const view = chat(page);
  await view.locator('.jp-FigureChat-input').fill('[script:hello] keep me');
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
  await expect(view.locator('.jp-FigureChat-message-mod-assistant')).toContainText('scripted');
  await page.locator('.jp-FigureChat-header-button[data-action="new"]').click();
  await expect(view.locator('.jp-FigureChat-message-mod-user')).toHaveCount(0);
  await view.locator('.jp-FigureChat-undoBar-undo').click();
  await expect(view.locator('.jp-FigureChat-message-mod-user')).toHaveText(
    '[script:hello] keep me'
  );

  const future = {
    version: 999,
    messages: [{ id: 'x', role: 'user', content: 'from the future', mood: 'hopeful' }],
    future_field: { keep: true }
  };
  await page.request.put(`/api/contents/${tmpPath}/future.ipynb`, {
    data: {
      type: 'notebook',
      format: 'json',
      content: {
        cells: [],
        metadata: {
          kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
          figure_chat: future
        },
        nbformat: 4,
        nbformat_minor: 5
      }
    }
  });
  await openNotebook(page, `${tmpPath}/future.ipynb`);
  await expect(chat(page).locator('.jp-FigureChat-notice')).toContainText('newer Figure Chat');
  await page.locator('.jp-FigureChat-header-button[data-action="new"]').click();
  await page.evaluate(() => window.jupyterapp.commands.execute('docmanager:save'));
  const saved = await page.request.get(`/api/contents/${tmpPath}/future.ipynb?content=1`);
  expect((await saved.json()).content.metadata.figure_chat).toEqual(future);
});

test('a failed request keeps the question, offers Retry and opens the settings', async ({
  page
}) => {
  await page.notebook.createNew('fail.ipynb');
  await openChat(page);
  const view = chat(page);
  await view.locator('.jp-FigureChat-input').fill('[script:error500] my long question');
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-error')).toBeVisible();
  await expect(view.locator('.jp-FigureChat-input')).toHaveValue(
    '[script:error500] my long question'
  );
  await view.locator('.jp-FigureChat-input').fill('');
  await view.locator('.jp-FigureChat-retry').click();
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
  await expect(view.locator('.jp-FigureChat-error')).toHaveCount(1);
  await expect(view.locator('.jp-FigureChat-message-mod-user')).toHaveCount(1);
  await view.locator('.jp-FigureChat-openSettings').click();
  await expect(page.locator('.jp-SettingsEditor, .jp-SettingsPanel').first()).toBeVisible();
});

test('code blocks copy and insert; the panel shows the model and example prompts', async ({
  page,
  context
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.notebook.createNew('code.ipynb');
  await openChat(page);
  const view = chat(page);
  await expect(page.locator('.jp-FigureChat-header-model')).toContainText(
    'scripted at http://127.0.0.1'
  );
  await expect(view.locator('.jp-FigureChat-examplePrompt')).toHaveCount(3);
  await view.locator('.jp-FigureChat-examplePrompt').first().click();
  await expect(view.locator('.jp-FigureChat-input')).toHaveValue(/Summarise/);
  await view.locator('.jp-FigureChat-input').fill('[script:code] show code');
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
  await expect(view.locator('.jp-FigureChat-entry-mod-assistant .jp-FigureChat-author')).toHaveText(
    'scripted'
  );
  const code = view.locator('.jp-FigureChat-code');
  await code.locator('[data-action="copy"]').click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
    'result = [n * n for n in range(4)]'
  );
  await code.locator('[data-action="insert"]').click();
  await expect(page.locator('.jp-NotebookPanel .jp-Cell')).toHaveCount(2);
  expect(await page.notebook.getCellTextInput(1)).toContain('print(result)');
  const overflow = await code
    .locator('pre')
    .evaluate(node => getComputedStyle(node).overflowX + ' ' + getComputedStyle(node).whiteSpace);
  expect(overflow).toBe('auto pre');
});

test('loading JupyterLab logs no shortcut collision from Figure Chat', async ({ page }) => {
  const warnings: string[] = [];
  page.on('console', message => {
    if (message.type() === 'warning' && message.text().includes('collides')) {
      void Promise.all(message.args().map(arg => arg.jsonValue().catch(() => ''))).then(args =>
        warnings.push(JSON.stringify(args))
      );
    }
  });
  await reloadLab(page);
  const binding = await page.evaluate(
    () =>
      window.jupyterapp.commands.keyBindings.find(b => b.command === 'figure-chat:open')?.keys ?? []
  );
  expect(binding.length).toBeGreaterThan(0);
  expect(warnings.filter(w => w.includes('figure-chat'))).toEqual([]);
  const caption = await page
    .locator('.jp-SideBar [data-id="jp-figure-chat-sidebar"]')
    .getAttribute('title');
  expect(caption).toContain('Figure Chat (');
});
