/**
 * What a person sees while the model is busy (issue 11, items 2 and 4): the card of a tool call
 * being written ("writing figure… 1.2 KB", growing) for structured and text calls, replaced in
 * place by the figure, and dropped by Stop; "Replace cell" on a code block; Enter while an answer
 * streams queues the message visibly and sends it when the answer ends.
 */
import { expect, test } from '@jupyterlab/galata';

import { chat, openChat, SETTINGS, typeInCell } from './helpers';

test.use({ mockSettings: SETTINGS, autoGoto: true });

/** The size a writing card shows, in KB (NaN when there is no such card). */
async function writtenKb(card: ReturnType<typeof chat>): Promise<number> {
  const text = (await card.count()) ? await card.first().textContent() : '';
  return Number(/([\d.]+) KB/.exec(text ?? '')?.[1] ?? NaN);
}

for (const [script, kind] of [
  ['svg-slow', 'structured'],
  ['svg-slow-hermes', 'text (Hermes)'],
  ['svg-slow-dsml', 'text (DSML)'],
  ['svg-slow-glm', 'text (GLM)']
] as const) {
  test(`a ${kind} present_svg call shows a live "writing figure…" card that grows, then the figure in its place`, async ({
    page
  }) => {
    await page.notebook.createNew(`${script}.ipynb`);
    await openChat(page);
    const view = chat(page);
    await view.locator('.jp-FigureChat-input').fill(`[script:${script}] draw dots`);
    await view.locator('.jp-FigureChat-input').press('Enter');

    const writing = view.locator('.jp-FigureChat-toolCard[data-state="writing"]');
    await expect(writing).toHaveCount(1);
    await expect(writing).toContainText('writing figure…');
    await expect(writing).toHaveAttribute('data-tool', 'present_svg');
    const callId = await writing.getAttribute('data-call-id');
    const first = await writtenKb(writing);
    expect(first).toBeLessThan(2);
    // Live: the size grows while the call is written (about 3.4 KB in 150 ms steps of 60 bytes).
    await expect.poll(() => writtenKb(writing)).toBeGreaterThanOrEqual(first + 1);
    // It sits right after the answer's text, where the figure will be.
    const order = () =>
      view.locator('.jp-FigureChat-chunk > *').evaluateAll(nodes =>
        nodes.map(node =>
          node.classList.contains('jp-FigureChat-entry-mod-assistant')
            ? 'answer'
            : // A finished figure may sit inside its lazy-rendering placeholder.
              (node.getAttribute('data-call-id') ??
              node.querySelector('[data-call-id]')?.getAttribute('data-call-id') ??
              node.className)
        )
      );
    expect((await order()).slice(1, 3)).toEqual(['answer', callId]);

    // Complete: the figure takes the card's place, under the same call id.
    const figure = view.locator('.jp-FigureChat-figure');
    await expect(figure).toHaveCount(1);
    await expect(writing).toHaveCount(0);
    await expect(figure).toHaveAttribute('data-call-id', callId ?? '');
    await expect(figure.locator('figcaption')).toHaveText('Sixty dots, written slowly');
    expect((await order()).slice(1, 3)).toEqual(['answer', callId]);
    await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
  });
}

test('Stop while a call is written drops its card and keeps the answer, interrupted', async ({
  page
}) => {
  await page.notebook.createNew('stop-writing.ipynb');
  await openChat(page);
  const view = chat(page);
  await view.locator('.jp-FigureChat-input').fill('[script:svg-stall] draw dots');
  await view.locator('.jp-FigureChat-input').press('Enter');
  const writing = view.locator('.jp-FigureChat-toolCard[data-state="writing"]');
  await expect(writing).toContainText('writing figure…');
  await view.locator('.jp-FigureChat-input').press('Escape');
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
  await expect(writing).toHaveCount(0);
  await expect(view.locator('.jp-FigureChat-toolCard, .jp-FigureChat-figure')).toHaveCount(0);
  const answer = view.locator('.jp-FigureChat-message-mod-assistant');
  await expect(answer).toContainText('Drawing sixty dots.');
  await expect(answer.locator('.jp-FigureChat-interrupted')).toBeVisible();
});

test('"Replace cell" puts a code block in place of the active cell’s source', async ({ page }) => {
  await page.notebook.createNew('replace.ipynb');
  await typeInCell(page, 0, 'old_value = 1');
  await openChat(page);
  const view = chat(page);
  await view.locator('.jp-FigureChat-input').fill('[script:code] show code');
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
  await view.locator('.jp-FigureChat-code [data-action="replace"]').click();
  await expect
    .poll(() => page.notebook.getCellTextInput(0))
    .toMatch(/^result = \[n \* n for n in range\(4\)\]\nprint\(result\)\s*$/);
  await expect(page.locator('.jp-NotebookPanel .jp-Cell')).toHaveCount(1);
});

test('Enter while an answer streams queues the message visibly and sends it when the answer ends', async ({
  page
}) => {
  await page.notebook.createNew('queue.ipynb');
  await openChat(page);
  const view = chat(page);
  const input = view.locator('.jp-FigureChat-input');
  await input.fill('[script:slow] keep going');
  await input.press('Enter');
  const streaming = view.locator('.jp-FigureChat-message-mod-assistant').last();
  await expect(streaming).toContainText('word1');

  await input.fill('[script:hello] and then this');
  await input.press('Enter');
  const queued = view.locator('.jp-FigureChat-queued');
  await expect(queued).toBeVisible();
  await expect(queued).toContainText('[script:hello] and then this');
  await expect(input).toHaveValue('');
  await expect(view.locator('.jp-FigureChat-message-mod-user')).toHaveCount(1);
  // Still streaming: the queued message waits.
  await expect(streaming).toContainText('word4');
  await expect(view.locator('.jp-FigureChat-message-mod-user')).toHaveCount(1);

  // The answer ends (Stop): the queued message is sent, and the notice goes.
  await view.locator('.jp-FigureChat-send').click();
  await expect(view.locator('.jp-FigureChat-message-mod-user')).toHaveText([
    '[script:slow] keep going',
    '[script:hello] and then this'
  ]);
  await expect(queued).toBeHidden();
  await expect(view.locator('.jp-FigureChat-message-mod-assistant').last()).toContainText(
    'Hello from the scripted model.'
  );
  await expect(view.locator('.jp-FigureChat-send')).toHaveText('Send');
});
