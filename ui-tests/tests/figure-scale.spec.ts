/**
 * The "drawn small" hint under figures and views: the scale a picture is drawn at in the sidebar
 * (read from the browser's own layout, never by forcing one per picture) and, below 60 %, a hint
 * saying so, kept current when the width it is drawn at changes.
 */
import { expect, test } from '@jupyterlab/galata';

import {
  chat,
  displayedViewWidth,
  dragSidebarEdge,
  openChatSidebar,
  putConversationNotebook,
  SETTINGS
} from './helpers';

test.use({ mockSettings: SETTINGS, kernels: null, sessions: null, terminals: null });

test('figures and views say the scale they are drawn at, and when it is small', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/scale.ipynb`;
  await putConversationNotebook(page, path, { messages: 8, figures: 1, views: 1 });
  await openChatSidebar(page);
  // Count reads of `naturalWidth`: for an SVG picture each read sizes its document again.
  await page.evaluate(() => {
    const property = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'naturalWidth');
    const get = property?.get;
    if (!get) {
      throw new Error('no naturalWidth getter');
    }
    Reflect.set(window, 'naturalWidthReads', 0);
    Object.defineProperty(HTMLImageElement.prototype, 'naturalWidth', {
      ...property,
      get(this: HTMLImageElement) {
        Reflect.set(
          window,
          'naturalWidthReads',
          Number(Reflect.get(window, 'naturalWidthReads')) + 1
        );
        return get.call(this);
      }
    });
  });
  await page.evaluate(async p => {
    await window.jupyterapp.commands.execute('docmanager:open', { path: p });
    await window.jupyterapp.commands.execute('figure-chat:open');
  }, path);
  const figures = chat(page).locator('figure.jp-FigureChat-figure[data-scale]');
  await expect(figures).toHaveCount(2);
  // At most once per picture, when it has loaded, however often it is resized (a view drawn at
  // the chat's width says its own width: its picture's is not read at all).
  expect(await page.evaluate(() => Reflect.get(window, 'naturalWidthReads'))).toBeLessThanOrEqual(
    2
  );
  /** Each picture's shown scale against the one measured now, and its hint. */
  const read = () =>
    figures.evaluateAll(elements =>
      elements.map(figure => {
        const img = figure.querySelector('img') as HTMLImageElement;
        const hint = figure.querySelector('.jp-FigureChat-figure-hint') as HTMLElement;
        return {
          shown: Number((figure as HTMLElement).dataset.scale),
          // Against the picture's own width: a view drawn at the chat's width is laid out at it.
          measured: img.clientWidth / (Number(img.getAttribute('width')) || img.naturalWidth),
          hint: hint.hidden ? null : hint.textContent
        };
      })
    );
  const check = async (): Promise<void> => {
    await expect
      .poll(async () =>
        (await read()).every(({ shown, measured }) => Math.abs(shown - measured) < 0.006)
      )
      .toBe(true);
    for (const { shown, hint } of await read()) {
      if (shown < 0.6) {
        expect(hint).toMatch(new RegExp(`^${Math.round(shown * 100)}% · `));
      } else {
        expect(hint).toBeNull();
      }
    }
  };
  await check();
  // The view (815 px wide) is drawn small in the sidebar.
  expect((await read()).some(({ hint }) => hint !== null)).toBe(true);
  // Narrower: the scales follow.
  const before = (await read()).map(({ shown }) => shown);
  await figures.evaluateAll(elements =>
    elements.forEach(figure => {
      (figure as HTMLElement).style.width = '120px';
    })
  );
  await expect.poll(async () => (await read()).map(({ shown }) => shown)).not.toEqual(before);
  await check();

  // The viewer shows the full view, not the small one the chat shows (drawn for it on the click).
  const small = chat(page).locator('.jp-FigureChat-visionView img');
  const [drawn, full] = await small.evaluate((img: HTMLImageElement) => [
    img.naturalWidth,
    Number(img.getAttribute('width'))
  ]);
  expect(drawn).toBeLessThan(full);
  await small.click();
  const viewer = page.locator('.jp-FigureChat-viewer-image');
  await expect(viewer).toBeVisible();
  await expect
    .poll(() => viewer.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBe(full);
});

test('a widened sidebar draws its views again at the new width, never showing an empty card', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/widen.ipynb`;
  await putConversationNotebook(page, path, { messages: 8, figures: 1, views: 1 });
  await openChatSidebar(page);
  await page.evaluate(async p => {
    await window.jupyterapp.commands.execute('docmanager:open', { path: p });
    await window.jupyterapp.commands.execute('figure-chat:open');
  }, path);
  const img = chat(page).locator('.jp-FigureChat-visionView img');
  await expect(img).toHaveCount(1);
  await img.scrollIntoViewIfNeeded();
  const drawn = (): Promise<number> =>
    img.evaluate((image: HTMLImageElement) => (image.complete ? image.naturalWidth : 0));
  const full = Number(await img.getAttribute('width'));
  const narrow = await displayedViewWidth(page);
  // The view (815 px wide) is drawn at the sidebar's width.
  expect(narrow).toBeLessThan(full);
  await expect.poll(drawn).toBe(narrow);

  // From now on, every frame must show the view drawn (never a card without it, a placeholder,
  // or a picture not yet decoded).
  await page.evaluate(() => {
    const frames = { all: 0, empty: [] as string[], watching: true };
    Reflect.set(window, 'viewFrames', frames);
    const look = (): void => {
      frames.all += 1;
      const images = [
        ...document.querySelectorAll('#jp-figure-chat-sidebar .jp-FigureChat-visionView img')
      ] as HTMLImageElement[];
      const shown = images.filter(image => image.complete && image.naturalWidth > 0);
      if (shown.length !== 1 || images.length !== 1) {
        frames.empty.push(`frame ${frames.all}: ${shown.length} of ${images.length} drawn`);
      }
      if (frames.watching) {
        requestAnimationFrame(look);
      }
    };
    requestAnimationFrame(look);
  });

  // Widen the sidebar as a person does: drag the edge between the main area and it.
  await dragSidebarEdge(page, -300, 10);
  const wide = await displayedViewWidth(page);
  expect(wide).toBeGreaterThan(narrow);
  await expect.poll(drawn, { timeout: 15000 }).toBe(Math.min(wide, full));

  const frames = await page.evaluate(() => {
    const watched = Reflect.get(window, 'viewFrames') as {
      all: number;
      empty: string[];
      watching: boolean;
    };
    watched.watching = false;
    return watched;
  });
  expect(frames.all).toBeGreaterThan(10);
  expect(frames.empty).toEqual([]);
});
