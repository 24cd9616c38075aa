/**
 * Another agent's call on a notebook open in JupyterLab: an MCP `present_svg` call (a real MCP
 * client, tests/mcp_client.py, against the jupyter-server-mcp of the test's Jupyter server) goes
 * to the page that has the notebook open, shows in its chat at once as the agent's turn, becomes
 * part of the notebook (saved with it, the file untouched until then), names the agent ("via
 * <name>") live and on replay after a reload;
 * a `vision_mark` on a Vision widget's picture lands in the widget and in the kernel's `v.marks`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { expect, test } from '@jupyterlab/galata';

import { RUNTIME } from '../jupyter.mjs';
import {
  chat,
  createNotebookFile,
  openChat,
  openChatSidebar,
  openNotebook,
  reloadLab,
  setCode,
  SETTINGS,
  storedTranscript,
  visibleCells
} from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const run = promisify(execFile);
const PYTHON = join(__dirname, '..', '..', '.venv', 'bin', 'python');
const CLIENT = join(__dirname, '..', '..', 'tests', 'mcp_client.py');

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="80" viewBox="0 0 160 80">' +
  '<rect x="8" y="8" width="144" height="64" rx="8" fill="#2563eb"/></svg>';
const ALT = 'One blue stage, drawn by an agent';

interface McpResult {
  isError: boolean;
  content: Array<{ type: string; text?: string; mimeType?: string; bytes?: number }>;
}

/** One MCP call from outside the page, as a terminal agent makes it. */
async function callMcp(tool: string, args: Record<string, unknown>): Promise<McpResult> {
  const url = process.env.FIGURE_CHAT_MCP_PORT
    ? `http://127.0.0.1:${process.env.FIGURE_CHAT_MCP_PORT}/mcp`
    : `pid:${readFileSync(join(RUNTIME, 'jupyter.pid'), 'utf8').trim()}`;
  const { stdout } = await run(
    PYTHON,
    [CLIENT, url, tool, JSON.stringify(args), '--name', 'Terminal agent'],
    { timeout: 120000 }
  );
  return JSON.parse(stdout) as McpResult;
}

test('an MCP present_svg call shows live in the open notebook, is saved with it and replays', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/agent.ipynb`;
  await createNotebookFile(page, path);
  await openChatSidebar(page);
  await openNotebook(page, path);
  await openChat(page);
  const before = await page.request.get(`/api/contents/${path}?content=0`);
  const modified = ((await before.json()) as { last_modified: string }).last_modified;

  const result = await callMcp('present_svg', { notebook: path, svg: SVG, alt: ALT });
  expect(result.isError).toBe(false);
  expect(result.content[0]).toEqual({ type: 'text', text: `SVG presented inline: ${ALT}` });
  expect(result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });

  // Live in the chat, as the chat's own figures are.
  const figure = chat(page).locator('.jp-FigureChat-figure');
  await expect(figure).toHaveCount(1);
  await expect(figure.locator('figcaption')).toHaveText(ALT);
  // The turn names the agent that made it, on the header a person sees.
  const via = chat(page).locator('.jp-FigureChat-agent');
  await expect(via).toHaveText('via Terminal agent');
  await expect(via).toBeVisible();
  // The page is the notebook's writer: the file is untouched until the notebook is saved.
  const unsaved = await page.request.get(`/api/contents/${path}?content=0`);
  expect(((await unsaved.json()) as { last_modified: string }).last_modified).toBe(modified);

  await page.notebook.save();
  const stored = await storedTranscript(page, path);
  const [assistant, tool] = stored.messages;
  expect(assistant.agent).toEqual({ name: 'Terminal agent', via: 'mcp' });
  expect(assistant.tool_calls).toEqual([
    { id: tool.tool_call_id, name: 'present_svg', arguments: { svg: SVG, alt: ALT } }
  ]);
  expect(tool.content).toBe(`SVG presented inline: ${ALT}`);

  await reloadLab(page);
  await openNotebook(page, path);
  await openChat(page);
  await expect(chat(page).locator('.jp-FigureChat-figure figcaption')).toHaveText(ALT);
  await expect(via).toHaveText('via Terminal agent');
  await expect(via).toBeVisible();
});

test('a hostile SVG from an agent is refused and leaves the open notebook unchanged', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/hostile.ipynb`;
  await createNotebookFile(page, path);
  await openChatSidebar(page);
  await openNotebook(page, path);
  await openChat(page);
  const result = await callMcp('present_svg', {
    notebook: path,
    svg: '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9" onload="alert(1)"/>',
    alt: 'x'
  });
  expect(result.isError).toBe(true);
  expect(result.content[0].text).toMatch(/^Tool error: SVG .*on/);
  await expect(chat(page).locator('.jp-FigureChat-message')).toHaveCount(0);
  // Nothing reached the document: no conversation in its metadata.
  const stored = await page.evaluate(() => {
    const widget = window.jupyterapp.shell.currentWidget;
    if (!widget || !('context' in widget)) {
      throw new Error('no notebook is shown');
    }
    const context = widget.context as { model: { getMetadata(key: string): unknown } };
    return context.model.getMetadata('figure_chat') ?? null;
  });
  expect(stored).toBeNull();
});

test('an MCP vision_mark on the picture of a Vision widget shows in the widget and in v.marks', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/agent-vision.ipynb`;
  await createNotebookFile(page, path);
  await openChatSidebar(page);
  await openNotebook(page, path);
  await setCode(
    page,
    0,
    'import json\nimport numpy as np\nfrom jupyterlab_figure_chat import Vision\nv = Vision(np.full((300, 400, 3), 200, np.uint8))\nv'
  );
  await page.notebook.runCell(0, true);
  const marks = page.locator('.jp-FigureChat-visionMarks');
  await expect(marks).toBeVisible({ timeout: 60000 });
  // The widget's output address, as notebook_read lists it.
  const cellId = await page.evaluate(() => {
    const widget = window.jupyterapp.shell.currentWidget;
    if (!widget || !('content' in widget)) {
      throw new Error('no notebook is shown');
    }
    const content = widget.content as { model: { cells: { get(i: number): { id: string } } } };
    return content.model.cells.get(0).id;
  });

  const result = await callMcp('vision_mark', {
    notebook: path,
    image: `cell:${cellId}/0`,
    marks: [{ at: '100,120', caption: 'from the agent' }]
  });
  expect(result.isError).toBe(false);
  expect(result.content[0].text).toContain('#1');
  expect(result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });

  await expect(marks.locator('[data-mark]')).toHaveCount(1);
  await setCode(page, 1, 'print(json.dumps(v.marks))');
  await page.notebook.runCell(1, true);
  const printed = visibleCells(page).nth(1).locator('.jp-OutputArea-output');
  await expect(printed).toContainText('from the agent');
  const read = JSON.parse((await printed.textContent()) ?? '[]') as Array<Record<string, unknown>>;
  expect(read).toEqual([expect.objectContaining({ id: 1, kind: 'point', x: 100, y: 120 })]);
  await expect(chat(page).locator('.jp-FigureChat-toolCard[data-tool="vision_mark"]')).toHaveCount(
    1
  );
});
