/**
 * Issue 33: opening JupyterLab costs a user no figure server (the version check reads the server
 * extension's start-up check from the page config), and the Settings editor names the endpoint in
 * force when the endpoint setting is empty, and where it came from.
 */
import { expect, test } from '@jupyterlab/galata';

test.use({ autoGoto: false });

test('opening JupyterLab asks nothing of the figure server', async ({ page }) => {
  const figureServerRequests: string[] = [];
  page.on('request', request => {
    if (request.url().includes('/figure-chat/')) {
      figureServerRequests.push(request.url());
    }
  });
  await page.goto();
  // The version check ran during activation, before the application reported itself ready.
  const check = await page.evaluate(() => {
    const config = document.getElementById('jupyter-config-data');
    return JSON.parse(config?.textContent ?? '{}').figureChatCheck as string | undefined;
  });
  expect(check, 'the server extension published its start-up check').toBeTruthy();
  expect(figureServerRequests).toEqual([]);
});

test('the Settings editor names the endpoint in force when the setting is empty', async ({
  page
}) => {
  await page.goto();
  const description = await page.evaluate(async () => {
    const registry = await window.galata.getPlugin('@jupyterlab/apputils-extension:settings');
    const settings = await registry?.load('jupyterlab-figure-chat:plugin');
    return String(settings?.schema.properties?.endpoint?.description ?? '');
  });
  // The Galata server has no FIGURE_CHAT_ENDPOINT: a local Ollama, said to be the default.
  expect(description).toContain(
    'When empty: http://localhost:11434/v1 (from the default: no endpoint in Settings or on the Jupyter server).'
  );
});
