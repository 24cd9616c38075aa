/**
 * Figures are readable where they first appear (issue 32 item 1): at a 1280×800 window, a freshly
 * opened Figure Chat shows a 640×400 chart at 0.6× or more, its 11-px labels at 7 px or more,
 * without the person resizing anything. The sidebar opens the first time at a width suited to
 * figures (40 % of the window, 460–640 px, never more than half of it); at JupyterLab's default
 * 250 px (what a person who narrowed it back sees) the same chart showed at 0.34×.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import { chat, createNotebookFile, openChat, openNotebook, SETTINGS } from './helpers';

test.use({ mockSettings: SETTINGS, viewport: { width: 1280, height: 800 } });

/** A 640×400 bar chart with 11-px tick labels and numbers, as a model draws one. */
function barChart(): string {
  const values = [12, 31, 24, 45, 38, 19];
  const bars = values
    .map((value, i) => {
      const x = 70 + i * 90;
      const h = value * 7;
      return (
        `<rect x="${x}" y="${350 - h}" width="60" height="${h}" fill="#4c78a8"/>` +
        `<text x="${x + 30}" y="${344 - h}" font-size="11" text-anchor="middle">${value}</text>` +
        `<text x="${x + 30}" y="366" font-size="11" text-anchor="middle">Group ${i + 1}</text>`
      );
    })
    .join('');
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="400" viewBox="0 0 640 400">' +
    '<rect width="640" height="400" fill="#fff"/>' +
    '<text x="320" y="28" font-size="16" text-anchor="middle">Samples per group</text>' +
    '<line x1="60" y1="350" x2="620" y2="350" stroke="#333"/>' +
    `${bars}</svg>`
  );
}

async function putChartNotebook(page: IJupyterLabPageFixture, path: string): Promise<void> {
  const alt = 'Samples per group, six bars';
  await createNotebookFile(page, path, {
    figure_chat: {
      version: 1,
      messages: [
        { id: 'u1', role: 'user', content: 'Plot the samples' },
        {
          id: 'a1',
          role: 'assistant',
          content: 'Here it is.',
          status: 'completed',
          tool_calls: [{ id: 'c1', name: 'present_svg', arguments: { svg: barChart(), alt } }]
        },
        {
          id: 't1',
          role: 'tool',
          tool_call_id: 'c1',
          status: 'completed',
          content: `SVG presented inline: ${alt}`
        }
      ]
    }
  });
}

/** The chart's drawn scale, read from the browser's layout once it has loaded. */
async function chartScale(page: IJupyterLabPageFixture): Promise<number> {
  const img = chat(page).locator('.jp-FigureChat-figure img');
  await expect(img).toHaveCount(1);
  await img.scrollIntoViewIfNeeded();
  await expect
    .poll(() => img.evaluate((image: HTMLImageElement) => image.complete && image.clientWidth))
    .toBeGreaterThan(0);
  return img.evaluate((image: HTMLImageElement) => image.getBoundingClientRect().width / 640);
}

test('a freshly opened chat shows a 640×400 chart readable at a 1280×800 window', async ({
  page,
  tmpPath
}, testInfo) => {
  const path = `${tmpPath}/chart.ipynb`;
  await putChartNotebook(page, path);

  // Before: the default width (the first opening already happened and the person narrowed it).
  await page.evaluate(() =>
    window.localStorage.setItem('jupyterlab-figure-chat:first-open-width', '1')
  );
  await openNotebook(page, path);
  await openChat(page);
  const narrow = await chartScale(page);
  const narrowWidth = await page
    .locator('#jp-figure-chat-sidebar')
    .evaluate((node: HTMLElement) => node.offsetWidth);

  // After: a browser that never opened Figure Chat, the same window, nothing resized.
  await page.evaluate(async () => {
    window.localStorage.removeItem('jupyterlab-figure-chat:first-open-width');
    await window.jupyterapp.commands.execute('application:toggle-right-area');
  });
  await expect(page.locator('#jp-figure-chat-sidebar')).toBeHidden();
  await openChat(page);
  await expect
    .poll(() =>
      page.locator('#jp-figure-chat-sidebar').evaluate((node: HTMLElement) => node.offsetWidth)
    )
    .toBeGreaterThan(400);
  const scale = await chartScale(page);
  const width = await page
    .locator('#jp-figure-chat-sidebar')
    .evaluate((node: HTMLElement) => node.offsetWidth);
  const report =
    `1280×800 window: sidebar ${narrowWidth} px → chart ${narrow.toFixed(2)}×, 11-px text ${(11 * narrow).toFixed(1)} px; ` +
    `first opening: sidebar ${width} px → chart ${scale.toFixed(2)}×, 11-px text ${(11 * scale).toFixed(1)} px`;
  testInfo.annotations.push({ type: 'readability', description: report });
  console.log(report);
  expect(narrow).toBeLessThan(0.6);
  expect(scale).toBeGreaterThanOrEqual(0.6);
  expect(11 * scale).toBeGreaterThanOrEqual(7);
  // The notebook keeps most of the window.
  expect(width).toBeLessThanOrEqual(1280 / 2);
  // The small-figure hint is gone at that scale.
  await expect(chat(page).locator('.jp-FigureChat-figure-hint')).toBeHidden();

  // Once only: a width the person then chooses is kept on the next opening.
  await page.evaluate(() => window.jupyterapp.commands.execute('application:toggle-right-area'));
  await openChat(page);
  expect(
    await page.locator('#jp-figure-chat-sidebar').evaluate((node: HTMLElement) => node.offsetWidth)
  ).toBe(width);
});
