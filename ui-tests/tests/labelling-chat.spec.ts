/**
 * The chat labels a picture set (issue 31): one question, and the scripted model reads the
 * notebook and marks all five pictures of a `VisionSet` by the addresses notebook_read lists,
 * with labelled boxes and polygons; `s.annotations` in the kernel holds them. The person then
 * corrects the chat's marks in the widget (a relabel by number key on the shown picture, a move on
 * the next one) and asks again: what the model reads back (its tool results) has the corrections.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { NotebookPanel } from '@jupyterlab/notebook';

import { ask, chat, modelRequests, openChat, resetModelLog, SETTINGS } from './helpers';
import { drag, labPrinter, marksLayer, type Mark, runFirstCell, screenAt } from './labelling-steps';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

/** The tool results of the last request the scripted model was sent. */
async function lastToolResults(page: IJupyterLabPageFixture): Promise<string[]> {
  const sent = await modelRequests(page);
  return sent[sent.length - 1].messages
    .filter(message => message.role === 'tool')
    .map(message => String(message.content));
}

test('the chat labels a 5-picture set with classes and polygons, and reads the corrections', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/labelling-chat.ipynb`;
  await runFirstCell(
    page,
    path,
    'import json\nimport numpy as np\nfrom jupyterlab_figure_chat import VisionSet\ns = VisionSet([np.full((300, 400, 3), 30 + 40 * i, np.uint8) for i in range(5)], classes=["cat", "dog"])\ns'
  );
  const print = labPrinter(page);
  const marks = marksLayer(page);
  await expect(marks).toBeVisible({ timeout: 60000 });
  const where = page.locator('.jp-NotebookPanel:visible .jp-FigureChat-visionSetWhere');
  await expect(where).toContainText('1 of 5');

  // The kernel fingerprints the pictures it has not shown yet just after the first paint (for
  // arrays the figure program encodes them): the set's output lists them all with fingerprints.
  await page.waitForFunction(
    () => {
      const panel = window.jupyterapp.shell.currentWidget as NotebookPanel | null;
      const output = panel?.content.widgets[0]?.model.toJSON().outputs;
      const first: unknown = Array.isArray(output) ? output[0] : undefined;
      const bundle = (first as { data?: Record<string, unknown> } | undefined)?.data?.[
        'application/vnd.figure-chat.figure+json'
      ] as { set?: { pictures?: Array<{ sha256?: string }> } } | undefined;
      const pictures = bundle?.set?.pictures ?? [];
      return pictures.length === 5 && pictures.every(picture => Boolean(picture.sha256));
    },
    undefined,
    { timeout: 60000 }
  );

  // One question: the model reads the notebook and marks every picture of the set.
  await openChat(page);
  await resetModelLog(page);
  await ask(page, '[script:vision-set] pre-label every picture with cats and dogs');
  await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
    'Labelled the set.',
    { timeout: 120000 }
  );
  const marked = await lastToolResults(page);
  expect(marked[0]).toContain('a VisionSet of 5 pictures');
  expect(marked).toHaveLength(6);
  for (const result of marked.slice(1)) {
    expect(result).toContain('#2');
    expect(result).not.toMatch(/not a picture|not read by the kernel|refused|kernel is gone/);
  }
  // The shown picture's widget draws the chat's marks with their classes.
  await expect(marks.locator('[data-mark]')).toHaveCount(2);
  await expect(marks.locator('[data-mark="1"]')).toHaveAttribute('data-label', 'cat');
  await expect(marks.locator('[data-mark="2"]')).toHaveAttribute('data-label', 'dog');
  await expect(marks.locator('[data-mark="2"] polygon')).toHaveCount(1);

  const names = Array.from({ length: 5 }, (_, i) => `picture-000${i}.png`);
  const annotations = await print<Record<string, Mark[]>>(1, 'print(json.dumps(s.annotations))');
  expect(Object.keys(annotations).sort()).toEqual(names);
  for (const [i, name] of names.entries()) {
    expect(annotations[name].map(m => [m.id, m.kind, m.label])).toEqual([
      [1, 'box', 'cat'],
      [2, 'polygon', 'dog']
    ]);
    expect(annotations[name][0].x0).toBe(40 + i);
    expect(annotations[name][1].points).toEqual([
      [200, 50],
      [320, 60],
      [260, 180]
    ]);
  }

  // The person's corrections: picture 1's box becomes a dog (select it, key 2); on picture 2 the
  // box is dragged 100 pixels down.
  const at = await screenAt(page, 100.5, 80.5);
  await page.mouse.click(at.x, at.y);
  await page.keyboard.press('2');
  await expect(marks.locator('[data-mark="1"]')).toHaveAttribute('data-label', 'dog');
  await page.keyboard.press('Escape');
  await page
    .locator('.jp-NotebookPanel:visible .jp-FigureChat-visionSet')
    .getByRole('button', { name: 'Next' })
    .click();
  await expect(where).toContainText('2 of 5');
  await expect(marks.locator('[data-mark="1"]')).toHaveAttribute('data-label', 'cat');
  await drag(page, [100.5, 80.5], [100.5, 180.5]);
  const corrected = await print<Record<string, Mark[]>>(
    2,
    'print(json.dumps({k: s.annotations[k] for k in ["picture-0000.png", "picture-0001.png"]}))'
  );
  expect(corrected['picture-0000.png'][0].label).toBe('dog');
  expect(corrected['picture-0001.png'][0].y0).toBe(140);
  expect(corrected['picture-0001.png'][0].y1).toBe(220);

  // Asked again, the model reads the set and lists the first two pictures: it gets the person's
  // corrections, the one on the picture the widget no longer shows among them.
  await resetModelLog(page);
  await ask(page, '[script:vision-set-review] check my corrections');
  await expect(chat(page).locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
    'I see your corrections.',
    { timeout: 120000 }
  );
  const read = await lastToolResults(page);
  const [first, second] = read.slice(-2);
  // `#1 box 40,40,160,120 <colour> label "dog" "cat 0"`: the chat's caption, the person's class.
  expect(first).toMatch(/^#1 box 40,40,160,120 \S+ label "dog" "cat 0"$/m);
  expect(first).toMatch(/^#2 polygon 200,50,320,60,260,180 \S+ label "dog"/m);
  expect(second).toMatch(/^#1 box 41,140,160,220 \S+ label "cat" "cat 1"$/m);
  await page.evaluate(() => window.jupyterapp.serviceManager.sessions.shutdownAll());
});
