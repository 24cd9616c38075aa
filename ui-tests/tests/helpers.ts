/**
 * Shared steps for the Figure Chat UI tests: settings pointing at the scripted model server,
 * opening the chat, asking, and reading what the notebook stored.
 */
import { expect, galata, type IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';

import { benchNotebook, type ConversationSize } from '../bench/conversation';

export const MODEL_URL = `http://127.0.0.1:${process.env.FIGURE_CHAT_MODEL_PORT ?? '8765'}`;

/** The Jupyter server with its base URL (`/user/alice/` in playwright.baseurl.config.js), ending in `/`. */
export const SERVER_URL = `http://127.0.0.1:${process.env.FIGURE_CHAT_TEST_PORT ?? '8888'}${
  process.env.FIGURE_CHAT_TEST_BASE_URL ?? '/'
}`;

/** Galata's default settings plus Figure Chat talking to the scripted model server. */
export const SETTINGS = {
  ...galata.DEFAULT_SETTINGS,
  'jupyterlab-figure-chat:plugin': {
    endpoint: `${MODEL_URL}/v1`,
    model: 'scripted',
    acceptsImages: 'yes'
  }
};

/**
 * The width replayed views are drawn at for the chat as it is now: the sidebar's width in device
 * pixels rounded up to 64 (`displayWidth` in src/chat/vision-views.ts); a view no wider is drawn
 * at its own width.
 */
export async function displayedViewWidth(page: IJupyterLabPageFixture): Promise<number> {
  return page.evaluate(() => {
    const sidebar = document.querySelector('#jp-figure-chat-sidebar') as HTMLElement;
    const width = sidebar.offsetWidth * window.devicePixelRatio;
    return Math.max(64, Math.ceil(width / 64) * 64);
  });
}

/** Open the Figure Chat sidebar through its command. */
export async function openChat(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(() => window.jupyterapp.commands.execute('figure-chat:open'));
  await expect(page.locator('#jp-figure-chat-sidebar .jp-FigureChat-view:visible')).toHaveCount(1);
}

/**
 * Open the Figure Chat sidebar before any notebook is open, as a person who opens the panel first
 * does: it shows its placeholder. (`openChat` waits for a chat view, which only a notebook has, so
 * it would wait out its whole timeout here.)
 */
export async function openChatSidebar(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(() => window.jupyterapp.commands.execute('figure-chat:open'));
  await expect(page.locator('#jp-figure-chat-sidebar .jp-FigureChat-placeholder')).toBeVisible();
}

/**
 * Record, in the page, the order in which vision cards first show drawn views (read it with
 * {@link readyOrder}).
 */
export async function recordReadyOrder(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(() => {
    const order: string[] = [];
    Reflect.set(window, 'figureChatReadyOrder', order);
    const sidebar = document.querySelector('#jp-figure-chat-sidebar') as HTMLElement;
    new MutationObserver(() => {
      sidebar
        .querySelectorAll<HTMLElement>('.jp-FigureChat-vision[data-views="ready"]')
        .forEach(card => {
          const id = card.dataset.callId ?? '';
          if (!order.includes(id)) {
            order.push(id);
          }
        });
    }).observe(sidebar, { childList: true, subtree: true });
  });
}

/** The call ids in the order their cards first showed drawn views, since {@link recordReadyOrder}. */
export async function readyOrder(page: IJupyterLabPageFixture): Promise<string[]> {
  const order: unknown = await page.evaluate(() => Reflect.get(window, 'figureChatReadyOrder'));
  return Array.isArray(order) ? order.map(String) : [];
}

/** Type a message and send it; resolves once the turn has ended. */
export async function ask(page: IJupyterLabPageFixture, text: string): Promise<void> {
  const view = page.locator('#jp-figure-chat-sidebar .jp-FigureChat-view:visible');
  await view.locator('.jp-FigureChat-input').fill(text);
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-message-mod-user').last()).toContainText(text);
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
}

/** The visible chat view. */
export function chat(page: IJupyterLabPageFixture) {
  return page.locator('#jp-figure-chat-sidebar .jp-FigureChat-view:visible');
}

/** The `figure_chat` metadata of the notebook as saved on the server. */
export async function storedTranscript(
  page: IJupyterLabPageFixture,
  path: string
): Promise<{ version: number; messages: Array<Record<string, unknown>> }> {
  const response = await page.request.get(`${SERVER_URL}api/contents/${path}?content=1`);
  expect(response.ok()).toBeTruthy();
  const model = (await response.json()) as { content: { metadata: Record<string, unknown> } };
  return model.content.metadata.figure_chat as {
    version: number;
    messages: Array<Record<string, unknown>>;
  };
}

/** Forget what the scripted model server was sent. */
export async function resetModelLog(page: IJupyterLabPageFixture): Promise<void> {
  await page.request.delete(`${MODEL_URL}/requests`);
}

/** What the scripted model server was sent. */
export async function modelRequests(
  page: IJupyterLabPageFixture
): Promise<Array<{ messages: Array<Record<string, unknown>>; tools?: unknown[] }>> {
  const response = await page.request.get(`${MODEL_URL}/requests`);
  return (await response.json()) as Array<{
    messages: Array<Record<string, unknown>>;
    tools?: unknown[];
  }>;
}

/** Open (or switch to) a notebook by path, as a double click in the file browser would. */
export async function openNotebook(page: IJupyterLabPageFixture, path: string): Promise<void> {
  await page.evaluate(async p => {
    await window.jupyterapp.commands.execute('docmanager:open', { path: p });
  }, path);
  const name = path.split('/').pop() ?? path;
  // Switch as a person does: a click on the notebook's tab.
  await page.locator('#jp-main-dock-panel .lm-TabBar-tab', { hasText: name }).first().click();
  await expect(page.locator('#jp-figure-chat-sidebar .jp-FigureChat-header-title')).toHaveText(
    `Figure Chat — ${name}`
  );
}

/** Write a notebook holding a generated conversation of this size (see bench/conversation.ts). */
export async function putConversationNotebook(
  page: IJupyterLabPageFixture,
  path: string,
  size: ConversationSize
): Promise<void> {
  const response = await page.request.put(`/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content: benchNotebook(size) }
  });
  expect(response.ok()).toBeTruthy();
}

/**
 * Create an empty notebook file on the server, with `metadata` beside its kernelspec (a stored
 * conversation as `figure_chat`, say).
 */
export async function createNotebookFile(
  page: IJupyterLabPageFixture,
  path: string,
  metadata: Record<string, unknown> = {}
): Promise<void> {
  const content = {
    cells: [],
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      ...metadata
    },
    nbformat: 4,
    nbformat_minor: 5
  };
  const response = await page.request.put(`${SERVER_URL}api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content }
  });
  expect(response.ok()).toBeTruthy();
}

/**
 * Reload JupyterLab as a person pressing F5 would, accepting the "leave page?" prompt a dirty
 * notebook raises, and wait until Figure Chat's commands exist again. (Galata's own reload waits
 * for a Launcher tab, which a restored layout need not have.)
 */
export async function reloadLab(page: IJupyterLabPageFixture): Promise<void> {
  const accept = (dialog: { type(): string; accept(): Promise<void> }): void => {
    if (dialog.type() === 'beforeunload') {
      void dialog.accept();
    }
  };
  page.on('dialog', accept);
  try {
    const loaded = page.waitForEvent('load', { timeout: 60000 });
    await page.evaluate(() => window.location.reload()).catch(() => undefined);
    await loaded;
    await page.waitForFunction(
      () => window.jupyterapp?.commands.hasCommand('figure-chat:open') === true,
      undefined,
      { timeout: 60000 }
    );
    await page.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
  } finally {
    page.off('dialog', accept);
  }
}

/** Save every document and close them all, as before quitting JupyterLab. */
export async function saveAndCloseAll(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(async () => {
    await window.jupyterapp.commands.execute('docmanager:save-all');
    await window.jupyterapp.commands.execute('application:close-all');
  });
  await expect(page.locator('#jp-main-dock-panel .jp-NotebookPanel')).toHaveCount(0);
}

/**
 * The cells of the notebook shown in the main area, as a person sees them. Other notebooks the
 * layout restored stay in the DOM, hidden; and JupyterLab 4.5 can leave the empty cell it gives a
 * still-loading notebook in the DOM at zero height and opacity once the content replaces it (see
 * the README's known gaps). An unscoped `.jp-Notebook .jp-Cell` could pick either.
 */
export function visibleCells(page: IJupyterLabPageFixture): Locator {
  return page.locator('.jp-NotebookPanel:visible .jp-Notebook .jp-Cell:visible');
}

/**
 * Type `source` (one line) into cell `index` of the notebook in the main area a key at a time, as a
 * person does, and leave the notebook in command mode. Galata's `setCell` types the same way, then
 * waits for ten animation frames in a row with the same editor HTML, read through the cell's node
 * as it found it before typing, with no time limit. JupyterLab sometimes gives a new notebook's
 * cell a new node just after it opens (a MutationObserver saw the typed cell's node removed, its
 * editor gone, while the new node showed the text); Galata's frame callback then throws on the old
 * node and its wait ran into the test's timeout (chat-progress.spec.ts, 1 run in 5 after
 * attach-picture.spec.ts, 2026-12-03). Here the document is loaded first, each step finds the cell
 * afresh, and the typed text is awaited within expect's timeout.
 */
export async function typeInCell(
  page: IJupyterLabPageFixture,
  index: number,
  source: string
): Promise<void> {
  await page.evaluate(async () => {
    const panel = window.jupyterapp.shell.currentWidget as unknown as {
      context?: { ready: Promise<void> };
      revealed?: Promise<void>;
    };
    await panel.context?.ready;
    await panel.revealed;
  });
  const editor = visibleCells(page).nth(index).locator('.cm-content');
  await editor.click();
  await expect(page.getByText('Mode: Edit', { exact: true })).toBeVisible();
  await editor.press('Control+A');
  await editor.pressSequentially(source);
  await expect(editor).toHaveText(source);
  await editor.press('Escape');
  await expect(page.getByText('Mode: Command', { exact: true })).toBeVisible();
}

/**
 * Put `source` into code cell `index` of the notebook shown in the main area through the
 * notebook's model, as a paste or a sync would, and click that cell (command mode) so that
 * Galata's `runCell` runs it. Typing the source a key at a time takes
 * half a minute for a few lines on a loaded machine; the specs that only need code in a cell use
 * this, and chat.spec.ts, chat-progress.spec.ts and notebook-figures.spec.ts type theirs
 * ({@link typeInCell}).
 * With `index` equal to the cell count, a code cell is added at the end.
 */
export async function setCode(
  page: IJupyterLabPageFixture,
  index: number,
  source: string
): Promise<void> {
  await page.evaluate(
    ({ index, source }) => {
      const panel = window.jupyterapp.shell.currentWidget as unknown as {
        content?: {
          model: {
            sharedModel: {
              cells: Array<{ cell_type: string }>;
              insertCell(at: number, cell: { cell_type: string; source: string }): void;
            };
          } | null;
          widgets: ReadonlyArray<{
            model: { sharedModel: { setSource(value: string): void } };
          }>;
          activeCellIndex: number;
          mode: string;
        };
      };
      const notebook = panel.content;
      const model = notebook?.model;
      if (!notebook || !model) {
        throw new Error('setCode: no notebook in the main area');
      }
      const cells = model.sharedModel.cells;
      if (index === cells.length) {
        model.sharedModel.insertCell(index, { cell_type: 'code', source });
      } else if (cells[index]?.cell_type === 'code') {
        notebook.widgets[index].model.sharedModel.setSource(source);
      } else {
        throw new Error(`setCode: cell ${index} is not a code cell`);
      }
      notebook.mode = 'command';
      notebook.activeCellIndex = index;
    },
    { index, source }
  );
  // Focus the cell as a click on it does, so that Control+Enter (Galata's `runCell`) reaches it.
  expect(await page.notebook.selectCells(index)).toBe(true);
  // The cell shows the source in its editor before anything runs it.
  const lastLine = source.split('\n').pop() ?? '';
  await expect(visibleCells(page).nth(index).locator('.cm-content')).toContainText(lastLine);
}

/** Move the edge between the main area and the sidebar by `dx` px, as a person drags it. */
export async function dragSidebarEdge(
  page: IJupyterLabPageFixture,
  dx: number,
  steps = 6
): Promise<void> {
  const handle = await page.evaluate(() => {
    const edge = (document.querySelector('#jp-right-stack') as HTMLElement).getBoundingClientRect()
      .left;
    const [nearest] = [...document.querySelectorAll('#jp-main-split-panel > .lm-SplitPanel-handle')]
      .map(element => element.getBoundingClientRect())
      .filter(rect => rect.height > 0)
      .sort((a, b) => Math.abs(a.right - edge) - Math.abs(b.right - edge));
    return { x: nearest.left + nearest.width / 2, y: nearest.top + nearest.height / 2 };
  });
  await page.mouse.move(handle.x, handle.y);
  await page.mouse.down();
  await page.mouse.move(handle.x + dx, handle.y, { steps });
  await page.mouse.up();
}
