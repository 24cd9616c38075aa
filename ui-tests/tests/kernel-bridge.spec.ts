/**
 * Figure and Vision from kernel code, as a person sees them: a Vision widget takes clicks and a
 * drag, the marks reach `v.marks` in the kernel and back; after save, kernel shutdown and reload
 * the same marked picture shows from the saved output, never "Error displaying widget".
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import {
  ask,
  chat,
  modelRequests,
  openChat,
  openNotebook,
  reloadLab,
  resetModelLog,
  saveAndCloseAll,
  setCode,
  SETTINGS,
  visibleCells
} from './helpers';
import { runFirstCell } from './labelling-steps';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

const FIGURE_MIME = 'application/vnd.figure-chat.figure+json';

interface SavedOutput {
  output_type: string;
  data?: Record<string, unknown>;
}

async function savedOutputs(page: IJupyterLabPageFixture, path: string): Promise<SavedOutput[][]> {
  const response = await page.request.get(`/api/contents/${path}?content=1`);
  expect(response.ok()).toBeTruthy();
  const model = (await response.json()) as {
    content: { cells: Array<{ outputs?: SavedOutput[] }> };
  };
  return model.content.cells.map(cell => cell.outputs ?? []);
}

/** The text a cell printed. */
function cellText(page: IJupyterLabPageFixture, index: number) {
  return visibleCells(page).nth(index).locator('.jp-OutputArea-output');
}

test('a Vision widget takes clicks and a drag, syncs v.marks both ways, and reopens without its kernel', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/vision-widget.ipynb`;
  await runFirstCell(
    page,
    path,
    'import json\nimport numpy as np\nfrom jupyterlab_figure_chat import Figure, Vision\nv = Vision(np.full((300, 400, 3), 200, np.uint8))\nv'
  );
  const marks = page.locator('.jp-FigureChat-visionMarks');
  await expect(marks).toBeVisible({ timeout: 60000 });

  const box = await marks.boundingBox();
  expect(box).not.toBeNull();
  const at = (x: number, y: number) => ({
    x: box!.x + ((x + 0.5) / 400) * box!.width,
    y: box!.y + ((y + 0.5) / 300) * box!.height
  });
  await page.mouse.click(at(100, 100).x, at(100, 100).y);
  await expect(marks.locator('[data-mark]')).toHaveCount(1);
  await page.mouse.click(at(300, 80).x, at(300, 80).y);
  await expect(marks.locator('[data-mark]')).toHaveCount(2);
  await page.mouse.move(at(150, 150).x, at(150, 150).y);
  await page.mouse.down();
  await page.mouse.move(at(250, 250).x, at(250, 250).y, { steps: 8 });
  await page.mouse.up();
  await expect(marks.locator('[data-mark]')).toHaveCount(3);

  await setCode(page, 1, 'print(json.dumps(v.marks))');
  await page.notebook.runCell(1, true);
  await expect(cellText(page, 1)).toContainText('"kind": "box"');
  const read = JSON.parse((await cellText(page, 1).textContent()) ?? '[]') as Array<
    Record<string, number | string>
  >;
  expect(read.map(mark => [mark.id, mark.kind])).toEqual([
    [1, 'point'],
    [2, 'point'],
    [3, 'box']
  ]);
  const near = (value: number | string, expected: number) =>
    expect(Math.abs(Number(value) - expected)).toBeLessThanOrEqual(2);
  near(read[0].x, 100);
  near(read[0].y, 100);
  near(read[1].x, 300);
  near(read[1].y, 80);
  near(read[2].x0, 150);
  near(read[2].y1, 251);

  // Kernel to widget: assigning the marks redraws them.
  await setCode(
    page,
    2,
    'v.marks = v.marks[:2] + [{"x": 20, "y": 30, "caption": "from python", "colour": "red"}]'
  );
  await page.notebook.runCell(2, true);
  await expect(marks.locator('[data-mark]')).toHaveCount(3);
  await expect(marks.locator('[data-mark="4"]')).toContainText('from python');

  // One record per picture: the chat marks the widget's picture by the address notebook_read
  // lists; the mark shows in the widget and in v.marks, and the model saw the person's marks.
  await resetModelLog(page);
  await openChat(page);
  await ask(page, '[script:vision-widget] mark the picture');
  await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
    'Marked the picture.'
  );
  await expect(marks.locator('[data-mark]')).toHaveCount(4);
  await expect(marks.locator('[data-mark="5"]')).toContainText('from chat');
  // The mark's view was drawn from the picture the kernel holds.
  await expect(chat(page).locator('.jp-FigureChat-visionView')).toHaveCount(1);
  const sent = await modelRequests(page);
  const toolTexts = sent[sent.length - 1].messages
    .filter(message => message.role === 'tool')
    .map(message => String(message.content));
  expect(toolTexts[1]).toContain('#5');
  expect(toolTexts[1]).not.toContain('kernel is gone');
  expect(toolTexts[1]).not.toContain('could not be rendered');
  expect(toolTexts[2]).toMatch(/#1\b/);
  expect(toolTexts[2]).toContain('from python');
  expect(toolTexts[2]).toContain('from chat');
  await setCode(page, 3, 'print(json.dumps([[m["id"], m["caption"]] for m in v.marks]))');
  await page.notebook.runCell(3, true);
  await expect(cellText(page, 3)).toContainText('from chat');
  expect(JSON.parse((await cellText(page, 3).textContent()) ?? '[]')).toEqual([
    [1, ''],
    [2, ''],
    [4, 'from python'],
    [5, 'from chat']
  ]);

  await setCode(
    page,
    4,
    'Figure(\'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="80"><rect x="10" y="10" width="150" height="50" fill="teal"/></svg>\', alt="A teal bar")'
  );
  await page.notebook.runCell(4, true);
  await expect(visibleCells(page).nth(4).locator('img')).toBeVisible();

  await saveAndCloseAll(page);
  const outputs = await savedOutputs(page, path);
  const vision = outputs[0].find(output => output.data?.[FIGURE_MIME]);
  // What is saved is the current record (kept up to date with update_display), and a PNG.
  const bundle = vision?.data?.[FIGURE_MIME] as { record: { marks: Array<{ id: number }> } };
  expect(bundle.record.marks.map(mark => mark.id)).toEqual([1, 2, 4, 5]);
  expect(typeof vision?.data?.['image/png']).toBe('string');
  expect(Object.keys(vision?.data ?? {})).toContain('application/vnd.figure-chat.widget+json');
  expect(vision?.data).not.toHaveProperty(['application/vnd.jupyter.widget-view+json']);
  const figure = outputs[4].find(output => output.data?.[FIGURE_MIME]);
  expect(figure?.data?.['text/plain']).toBe('A teal bar');

  await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
  await reloadLab(page);
  await openNotebook(page, path);
  // Cells are found by what they hold, not by index.
  const first = visibleCells(page).filter({ hasText: 'v = Vision(' });
  // Outputs of a reopened notebook render once the notebook is laid out; wait for that state.
  await expect(first.locator('.jp-OutputArea-output img')).toHaveCount(1, { timeout: 60000 });
  await expect(first.locator('.jp-FigureChat-liveOutput img')).toBeVisible();
  const shown = await first
    .locator('.jp-FigureChat-liveOutput img')
    .evaluate(image => (image as HTMLImageElement).src);
  expect(shown).toContain(String(vision?.data?.['image/png']).slice(0, 200));
  await expect(page.locator('.jp-FigureChat-visionMarks')).toHaveCount(0);
  await expect(page.locator('.jp-Notebook')).not.toContainText('Error displaying widget');
  await expect(visibleCells(page).filter({ hasText: 'A teal bar' }).locator('img')).toBeVisible();
});

test('marks the chat writes into a Vision widget count only once the kernel takes them', async ({
  page,
  tmpPath
}) => {
  test.setTimeout(180000);
  const path = `${tmpPath}/vision-busy.ipynb`;
  await runFirstCell(
    page,
    path,
    'import json, os, time\nimport numpy as np\nfrom jupyterlab_figure_chat import Vision\nv = Vision(np.full((300, 400, 3), 200, np.uint8))\nv'
  );
  const marks = page.locator('.jp-FigureChat-visionMarks');
  await expect(marks).toBeVisible({ timeout: 60000 });

  // The person runs a long cell; the chat's write waits in the kernel's queue behind it, longer
  // than the tool waits (10 s), so the kernel must not take it when it gets to it. The cell runs
  // until the test releases it (a file written once the tool has given up; two minutes at most),
  // so the write is past its deadline however slow the machine, with no fixed sleep to wait out.
  await setCode(
    page,
    1,
    'any(os.path.exists("release") or time.sleep(0.1) for _ in range(1200))\nprint("slept")'
  );
  await page.notebook.selectCells(1);
  await page.keyboard.press('Control+Enter');
  await expect(visibleCells(page).nth(1).locator('.jp-InputPrompt')).toContainText('*');

  await resetModelLog(page);
  await openChat(page);
  await ask(page, '[script:vision-widget-busy] mark the picture');
  const card = chat(page).locator('.jp-FigureChat-toolCard[data-tool="vision_mark"]');
  await expect(card).toHaveAttribute('data-state', 'failed');
  const sent = await modelRequests(page);
  const result = sent[sent.length - 1].messages
    .filter(message => message.role === 'tool')
    .map(message => String(message.content))[1];
  expect(result).toContain('Tool error');
  expect(result).toContain('did not answer within 10 s');
  // The widget shows the kernel's marks: none.
  await expect(marks.locator('[data-mark]')).toHaveCount(0);

  // Once the cell ends, the kernel reads the write, finds it past its deadline and refuses it.
  const release = await page.request.put(`/api/contents/${tmpPath}/release`, {
    data: { type: 'file', format: 'text', content: '' }
  });
  expect(release.ok()).toBeTruthy();
  await setCode(page, 2, 'print(json.dumps(v.marks))');
  await page.notebook.runCell(2, true);
  await expect(cellText(page, 1)).toContainText('slept');
  await expect(cellText(page, 2)).toHaveText('[]');
  await expect(marks.locator('[data-mark]')).toHaveCount(0);
});
