/**
 * Hostile stored conversations (issue 7 item 10): a 5 MB Markdown table, a 20 MB message, a figure
 * too expensive to draw, and a conversation pasted twice (duplicate ids). Opening each keeps every
 * main-thread task within the budget (PerformanceObserver `longtask`), raises no page error, shows
 * every entry, and saving leaves the notebook's conversation exactly as it was.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import { chat, openChat, openNotebook, SETTINGS } from './helpers';

// No trace: Playwright's trace snapshots walk the whole DOM on the page's main thread after each
// step (66–131 ms tasks in a profile of this spec), and the longtask observer would count them.
test.use({ mockSettings: SETTINGS, autoGoto: true, trace: 'off' });

/** The longest main-thread task allowed while a stored conversation opens. */
const TASK_BUDGET_MS = 200;

function notebookWith(figureChat: unknown) {
  return {
    cells: [{ cell_type: 'markdown', id: 'c0', metadata: {}, source: 'hostile' }],
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      figure_chat: figureChat
    },
    nbformat: 4,
    nbformat_minor: 5
  };
}

function assistant(id: string, content: string, extra: Record<string, unknown> = {}) {
  return { id, role: 'assistant', content, status: 'completed', ...extra };
}

/**
 * Open a notebook in the background first (JupyterLab's own cost of reading a 20 MB file is not
 * the chat's), then observe long tasks from the moment it is brought forward and its chat is built.
 */
async function openObserved(page: IJupyterLabPageFixture, path: string): Promise<void> {
  await page.evaluate(async p => {
    await window.jupyterapp.commands.execute('docmanager:open', {
      path: p,
      options: { activate: false }
    });
    const name = p.split('/').pop();
    const widget = [...window.jupyterapp.shell.widgets('main')].find(
      w => w.title.label === name
    ) as unknown as { context: { ready: Promise<void> } } | undefined;
    await widget?.context.ready;
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver(list => {
      for (const entry of list.getEntries()) {
        w.longTasks.push(entry.duration);
      }
    }).observe({ type: 'longtask' });
  }, path);
  await openNotebook(page, path);
  await openChat(page);
}

/**
 * Open an ordinary notebook with a short conversation first: the first notebook and the first
 * Markdown JupyterLab renders load code once per page, which no conversation can avoid.
 */
async function warmUp(page: IJupyterLabPageFixture, tmpPath: string): Promise<void> {
  const path = `${tmpPath}/warm.ipynb`;
  const figureChat = {
    version: 1,
    messages: [{ id: 'u', role: 'user', content: 'hi' }, assistant('a', '**Hello** `x`')]
  };
  await page.request.put(`/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content: notebookWith(figureChat) }
  });
  await openNotebook(page, path);
  await openChat(page);
  await expect(chat(page).locator('.jp-FigureChat-markdown strong')).toHaveText('Hello');
}

async function longestTask(page: IJupyterLabPageFixture): Promise<number> {
  return page.evaluate(() =>
    Math.max(0, ...(window as unknown as { longTasks: number[] }).longTasks)
  );
}

async function saveAndRead(page: IJupyterLabPageFixture, path: string): Promise<unknown> {
  await page.evaluate(() => window.jupyterapp.commands.execute('docmanager:save'));
  const response = await page.request.get(`/api/contents/${path}?content=1`);
  return ((await response.json()) as { content: { metadata: { figure_chat: unknown } } }).content
    .metadata.figure_chat;
}

test('huge stored messages open within the task budget, as capped Markdown', async ({
  page,
  tmpPath
}) => {
  const errors: string[] = [];
  page.on('pageerror', error => errors.push(error.message));
  await warmUp(page, tmpPath);
  const row = '| cell | another cell | 12345 |\n';
  const table = '| a | b | c |\n|---|---|---|\n' + row.repeat(Math.ceil(5_000_000 / row.length));
  const conversations = {
    'table.ipynb': {
      version: 1,
      messages: [
        { id: 'u1', role: 'user', content: 'a table please' },
        assistant('a1', `Here it is:\n\n${table}`)
      ]
    },
    'huge.ipynb': {
      version: 1,
      messages: [
        { id: 'u1', role: 'user', content: 'talk' },
        assistant('a1', 'Start. ' + '[x](y) *z* '.repeat(2_000_000))
      ]
    }
  };
  for (const [name, figureChat] of Object.entries(conversations)) {
    const path = `${tmpPath}/${name}`;
    const put = await page.request.put(`/api/contents/${path}`, {
      data: { type: 'notebook', format: 'json', content: notebookWith(figureChat) }
    });
    expect(put.ok()).toBeTruthy();
    await openObserved(page, path);
    const message = chat(page).locator('.jp-FigureChat-message-mod-assistant');
    await expect(message.locator('.jp-FigureChat-plainNote')).toBeVisible();
    await expect(message.locator('.jp-FigureChat-showMore')).toBeVisible();
    await expect(message).toContainText(name === 'table.ipynb' ? 'Here it is:' : 'Start.');
    expect(await longestTask(page), `longest task opening ${name}`).toBeLessThanOrEqual(
      TASK_BUDGET_MS
    );
    // The rest is there on demand, a step at a time.
    await message.locator('.jp-FigureChat-showMore').click();
    await expect(message.locator('.jp-FigureChat-plainText')).toHaveCount(2);
    expect(await saveAndRead(page, path)).toEqual(figureChat);
  }
  expect(errors).toEqual([]);
});

test('a conversation pasted twice shows every entry, with a notice, and is kept intact', async ({
  page,
  tmpPath
}) => {
  const turn = [
    { id: 'u1', role: 'user', content: 'read it' },
    assistant('a1', 'Reading.', {
      tool_calls: [{ id: 'c1', name: 'notebook_read', arguments: {} }]
    }),
    { id: 't1', role: 'tool', tool_call_id: 'c1', status: 'completed', content: 'FIRST result' },
    assistant('a2', 'Read once.')
  ];
  const second = JSON.parse(JSON.stringify(turn));
  second[2].content = 'SECOND result';
  second[3].content = 'Read twice.';
  const figureChat = { version: 1, messages: [...turn, ...second], pasted: 'twice' };
  const path = `${tmpPath}/twice.ipynb`;
  await warmUp(page, tmpPath);
  await page.request.put(`/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content: notebookWith(figureChat) }
  });
  await openObserved(page, path);
  const view = chat(page);
  await expect(view.locator('.jp-FigureChat-message-mod-user')).toHaveCount(2);
  await expect(view.locator('.jp-FigureChat-message-mod-assistant')).toHaveCount(4);
  const cards = view.locator('.jp-FigureChat-toolCard');
  await expect(cards).toHaveCount(2);
  await expect(view.locator('.jp-FigureChat-notice')).toContainText('share an id');
  await expect(view.locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
    'Read twice.'
  );
  // Results pair by position: the first call shows the first result.
  await cards.first().locator('summary').click();
  await expect(cards.first().locator('.jp-FigureChat-toolCard-result')).toHaveText('FIRST result');
  await cards.last().locator('summary').click();
  await expect(cards.last().locator('.jp-FigureChat-toolCard-result')).toHaveText('SECOND result');
  expect(await longestTask(page)).toBeLessThanOrEqual(TASK_BUDGET_MS);
  expect(await saveAndRead(page, path)).toEqual(figureChat);
});

test('a stored figure too expensive to draw is refused on replay, within the task budget', async ({
  page,
  tmpPath
}) => {
  const errors: string[] = [];
  page.on('pageerror', error => errors.push(error.message));
  await warmUp(page, tmpPath);
  // About 30 KB that passed the old policy: a 4000×4000 canvas under turbulence, morphology and a
  // large convolution, which cost a multi-second frame on every repaint.
  const kernel = Array.from({ length: 81 }, (_, i) => String((i % 7) - 3)).join(' ');
  const shapes = Array.from(
    { length: 400 },
    (_, i) =>
      `<rect x="${(i % 20) * 200}" y="${Math.floor(i / 20) * 200}" width="180" height="180"/>`
  ).join('');
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000">' +
    '<filter id="f" x="0" y="0" width="4000" height="4000" filterUnits="userSpaceOnUse">' +
    '<feTurbulence baseFrequency="0.9" numOctaves="10"/>' +
    '<feMorphology radius="60"/>' +
    `<feConvolveMatrix order="9" kernelMatrix="${kernel}"/>` +
    `</filter><g filter="url(#f)">${shapes}</g></svg>`;
  const figureChat = {
    version: 1,
    messages: [
      { id: 'u1', role: 'user', content: 'draw something heavy' },
      assistant('a1', 'Here.', {
        tool_calls: [{ id: 'c1', name: 'present_svg', arguments: { svg, alt: 'Heavy' } }]
      }),
      {
        id: 't1',
        role: 'tool',
        tool_call_id: 'c1',
        status: 'completed',
        content: 'SVG presented inline: Heavy'
      }
    ]
  };
  const path = `${tmpPath}/expensive.ipynb`;
  const put = await page.request.put(`/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content: notebookWith(figureChat) }
  });
  expect(put.ok()).toBeTruthy();
  await openObserved(page, path);
  const card = chat(page).locator('.jp-FigureChat-toolCard[data-tool="present_svg"]');
  await expect(card).toHaveAttribute('data-state', 'failed');
  await expect(card.locator('.jp-FigureChat-toolCard-result')).toContainText(
    'too expensive to draw'
  );
  await expect(chat(page).locator('.jp-FigureChat-figure')).toHaveCount(0);
  expect(await longestTask(page), 'longest task opening expensive.ipynb').toBeLessThanOrEqual(
    TASK_BUDGET_MS
  );
  expect(await saveAndRead(page, path)).toEqual(figureChat);
  expect(errors).toEqual([]);
});
