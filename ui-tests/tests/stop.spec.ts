/**
 * Stop reaches the model (issue 7.4): jupyter-server-proxy does not pass on a browser that drops
 * its request, so the chat asks the figure server to cancel the request by id. The scripted model
 * server records when its connection was closed; it must be within a second of the click.
 */
import { expect, test } from '@jupyterlab/galata';

import { chat, modelRequests, openChat, resetModelLog, SETTINGS } from './helpers';

test.use({ mockSettings: SETTINGS, autoGoto: true });

test('Stop closes the connection to the model server within a second', async ({ page }) => {
  await page.notebook.createNew('stop.ipynb');
  await openChat(page);
  await resetModelLog(page);
  const view = chat(page);
  await view.locator('.jp-FigureChat-input').fill('[script:slow] keep talking');
  await view.locator('.jp-FigureChat-input').press('Enter');
  await expect(view.locator('.jp-FigureChat-message-mod-assistant').last()).toContainText('word3');

  // The moment of the click, taken in the page (Playwright's own steps take time on a busy machine).
  const stop = view.locator('.jp-FigureChat-send');
  await stop.evaluate(button =>
    button.addEventListener('click', () => (document.body.dataset.stoppedAt = `${Date.now()}`), {
      capture: true,
      once: true
    })
  );
  await stop.click();
  await expect(stop).toHaveText('Send');
  const stoppedAt = Number(await page.evaluate(() => document.body.dataset.stoppedAt));

  await expect
    .poll(async () => ((await modelRequests(page)).at(-1) as { closedAt?: number }).closedAt, {
      timeout: 10_000
    })
    .toBeDefined();
  const [request] = (await modelRequests(page)) as Array<{ closedAt?: number }>;
  expect((request.closedAt ?? Infinity) - stoppedAt).toBeLessThan(1000);
});
