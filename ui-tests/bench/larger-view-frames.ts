/**
 * Repaints in the larger view while a person zooms and scrolls (issue 32 item 2): the longest gap
 * between two animation frames, measured in the page with requestAnimationFrame. Shared by
 * bench/figure-repaint.spec.ts (which reports it) and tests/rough-edges.spec.ts (which bounds it).
 */
import { expect, type IJupyterLabPageFixture } from '@jupyterlab/galata';

/**
 * Zoom in three times with the toolbar, once with the wheel, scroll the view four times, then
 * wait for the view to settle; the longest frame gap (ms) over all of it.
 */
export async function largerViewRepaints(page: IJupyterLabPageFixture): Promise<number> {
  const viewer = page.locator('.jp-FigureChat-viewer:visible');
  const toolbar = page.locator('.jp-FigureChat-viewerPanel:visible');
  await page.evaluate(() => {
    const frames: number[] = [];
    Reflect.set(window, 'largerViewFrames', frames);
    const tick = (time: number): void => {
      frames.push(time);
      if (Reflect.get(window, 'largerViewFrames') === frames) {
        requestAnimationFrame(tick);
      }
    };
    requestAnimationFrame(tick);
  });
  const zoomIn = toolbar.getByRole('button', { name: '+', exact: true });
  for (let i = 0; i < 3; i++) {
    const before = await viewer.getAttribute('data-zoom');
    await zoomIn.click();
    await expect(viewer).not.toHaveAttribute('data-zoom', before ?? '');
  }
  await viewer.hover();
  await page.mouse.wheel(0, -120);
  for (let i = 0; i < 4; i++) {
    // One scroll step per frame, as a wheel or a drag moves the picture.
    await viewer.evaluate(
      node =>
        new Promise<void>(resolve => {
          node.scrollTop += 150;
          node.scrollLeft += 100;
          requestAnimationFrame(() => resolve());
        })
    );
  }
  // Settled: no finer raster still coming; then 30 more frames.
  await expect(viewer).not.toHaveAttribute('data-raster-pending', 'true', { timeout: 30_000 });
  return page.evaluate(async () => {
    const frames = Reflect.get(window, 'largerViewFrames') as number[];
    const until = frames.length + 30;
    while (frames.length < until) {
      await new Promise(resolve => requestAnimationFrame(resolve));
    }
    Reflect.set(window, 'largerViewFrames', null);
    let longest = 0;
    for (let i = 1; i < frames.length; i++) {
      longest = Math.max(longest, frames[i] - frames[i - 1]);
    }
    return Math.round(longest);
  });
}
