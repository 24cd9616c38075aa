/**
 * Issue 11.9: a conversation of 1,000 messages with 100 figures and 20 vision views, stored in a
 * notebook. Reports (never asserts a time): opening it, scroll frame times from the top of the chat
 * to the bottom, and main-thread long tasks while a 2 MB reply streams in one-character deltas.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';

import { chat, openChat, SETTINGS } from '../tests/helpers';
import { benchNotebook } from './conversation';
import { startProfile, stopProfile } from './profile';

test.use({
  mockSettings: SETTINGS,
  kernels: null,
  sessions: null,
  terminals: null
});

const SIZE = { messages: 1000, figures: 100, views: 20 };

interface LongTasks {
  count: number;
  totalMs: number;
  longestMs: number;
}

/** Start collecting long tasks (PerformanceObserver 'longtask') in the page. */
async function startLongTasks(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { benchTasks: number[]; benchObserver?: PerformanceObserver };
    w.benchObserver?.disconnect();
    w.benchTasks = [];
    w.benchObserver = new PerformanceObserver(list => {
      for (const entry of list.getEntries()) {
        w.benchTasks.push(entry.duration);
      }
    });
    w.benchObserver.observe({ type: 'longtask' });
  });
}

async function stopLongTasks(page: IJupyterLabPageFixture): Promise<LongTasks> {
  return page.evaluate(async () => {
    // Entries are delivered after the task: let one more frame pass.
    await new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)));
    const w = window as unknown as { benchTasks: number[]; benchObserver?: PerformanceObserver };
    w.benchObserver?.disconnect();
    const tasks = w.benchTasks;
    return {
      count: tasks.length,
      totalMs: Math.round(tasks.reduce((a, b) => a + b, 0)),
      longestMs: Math.round(Math.max(0, ...tasks))
    };
  });
}

type Profiler = NonNullable<Awaited<ReturnType<typeof startProfile>>>;

type Tracer = Profiler;

/** What the main thread did inside long tasks, as the browser's timeline names it. */
const TRACED = new Set([
  'FunctionCall',
  'TimerFire',
  'FireAnimationFrame',
  'EventDispatch',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
  'Layerize',
  'HitTest',
  'IntersectionObserverController::computeIntersections',
  'RunMicrotasks',
  'MinorGC',
  'MajorGC',
  'V8.GC_MARK_COMPACTOR',
  'ParseHTML'
]);

/** FIGURE_CHAT_BENCH_TRACE=1: record the browser's timeline (CDP Tracing). */
async function startTrace(page: IJupyterLabPageFixture): Promise<Tracer | null> {
  if (!process.env.FIGURE_CHAT_BENCH_TRACE) {
    return null;
  }
  const tracer = await page.context().newCDPSession(page.mainFrame());
  await tracer.send('Tracing.start', {
    traceConfig: {
      recordMode: 'recordContinuously',
      includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8']
    },
    transferMode: 'ReportEvents'
  });
  return tracer;
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tid: number;
  args?: { data?: { functionName?: string; url?: string; lineNumber?: number } };
}

/**
 * Print, for tasks over 50 ms, the time (inclusive, ms) of each kind of work inside them, and the
 * script functions they called: where the long tasks come from.
 */
async function stopTrace(tracer: Tracer | null, label: string): Promise<void> {
  if (!tracer) {
    return;
  }
  const events: TraceEvent[] = [];
  // The protocol types events as string maps; they are JSON with numbers and nested args.
  tracer.on('Tracing.dataCollected', data =>
    events.push(...(JSON.parse(JSON.stringify(data.value)) as TraceEvent[]))
  );
  const done = new Promise(resolve => tracer.once('Tracing.tracingComplete', resolve));
  await tracer.send('Tracing.end');
  await done;
  await tracer.detach();
  const tasks = events.filter(e => e.ph === 'X' && e.name === 'RunTask' && (e.dur ?? 0) > 50000);
  const byKind = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const task of tasks) {
    const end = task.ts + (task.dur ?? 0);
    for (const e of events) {
      if (e.tid !== task.tid || e.ph !== 'X' || e.ts < task.ts || e.ts >= end || !e.dur) {
        continue;
      }
      if (TRACED.has(e.name)) {
        byKind.set(e.name, (byKind.get(e.name) ?? 0) + e.dur / 1000);
      }
      const data = e.args?.data;
      if (e.name === 'FunctionCall' && data) {
        const name = `${data.functionName || '(anonymous)'} ${data.url?.split('/').pop()?.slice(0, 30) ?? ''}:${data.lineNumber ?? 0}`;
        byFunction.set(name, (byFunction.get(name) ?? 0) + e.dur / 1000);
      }
    }
  }
  const top = (map: Map<string, number>, n: number): string =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => `${name} ${Math.round(ms)}`)
      .join('; ');
  // The three longest tasks, each by what ran at its top level.
  const longest = [...tasks]
    .sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
    .slice(0, 3)
    .map(task => {
      const end = task.ts + (task.dur ?? 0);
      const inside = events
        .filter(
          e => e !== task && e.tid === task.tid && e.ph === 'X' && e.ts >= task.ts && e.ts < end
        )
        .sort((a, b) => a.ts - b.ts);
      const parts: Array<[string, number]> = [];
      let covered = 0;
      for (const e of inside) {
        if (e.ts >= covered && e.dur) {
          covered = e.ts + e.dur;
          const fn = e.args?.data?.functionName;
          parts.push([`${e.name}${fn ? `(${fn})` : ''}`, e.dur / 1000]);
        }
      }
      const shown = parts
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([name, ms]) => `${name} ${Math.round(ms)}`)
        .join(', ');
      return `${Math.round((task.dur ?? 0) / 1000)} ms [${shown}]`;
    });
  console.log(
    `bench ${label} trace: ${tasks.length} tasks > 50 ms; longest ${longest.join('; ')}; inside them (ms): ${top(byKind, 12)}; script entry points: ${top(byFunction, 10)}`
  );
}

function describe(tasks: LongTasks): string {
  return `${tasks.count} long tasks, ${tasks.totalMs} ms in total, longest ${tasks.longestMs} ms`;
}

/** Resolve once the images in the chat's visible area are decoded and its views are drawn. */
function viewportReady(): Promise<void> {
  const scroller = document.querySelector(
    '#jp-figure-chat-sidebar .jp-FigureChat-view:not(.lm-mod-hidden) .jp-FigureChat-scroller'
  ) as HTMLElement;
  const ready = (): boolean => {
    const area = scroller.getBoundingClientRect();
    // The chat's visible area: the scroller's box, within the window.
    const top = Math.max(area.top, 0);
    const bottom = Math.min(area.bottom, window.innerHeight);
    const within = (element: Element): boolean => {
      const box = element.getBoundingClientRect();
      return box.bottom > top && box.top < bottom && box.height > 0;
    };
    const pending = Array.from(
      scroller.querySelectorAll('.jp-FigureChat-vision, .jp-FigureChat-lazy')
    ).filter(
      element =>
        within(element) &&
        (element.classList.contains('jp-FigureChat-lazy') ||
          (element as HTMLElement).dataset.views === 'rendering')
    );
    const images = Array.from(
      scroller.querySelectorAll<HTMLImageElement>('img.jp-FigureChat-figure-image')
    ).filter(within);
    return !pending.length && images.every(image => image.complete && image.naturalWidth > 0);
  };
  return new Promise(resolve => {
    const check = (): void => (ready() ? resolve() : void requestAnimationFrame(check));
    check();
  });
}

test('1,000 messages with 100 figures: open, scroll, stream a 2 MB reply', async ({
  page,
  tmpPath
}) => {
  const path = `${tmpPath}/long-chat.ipynb`;
  const put = await page.request.put(`/api/contents/${path}`, {
    data: { type: 'notebook', format: 'json', content: benchNotebook(SIZE) }
  });
  expect(put.ok()).toBeTruthy();
  await openChat(page).catch(() => undefined);

  // Open: from the open command to the newest messages on screen with their pictures.
  await startLongTasks(page);
  const openProfile = await startProfile(page);
  const openTrace = await startTrace(page);
  const opened = await page.evaluate(async p => {
    const t0 = performance.now();
    await window.jupyterapp.commands.execute('docmanager:open', { path: p });
    await window.jupyterapp.commands.execute('figure-chat:open');
    return t0;
  }, path);
  await expect(chat(page).locator('.jp-FigureChat-message')).not.toHaveCount(0, {
    timeout: 120000
  });
  await expect(chat(page).locator('.jp-FigureChat-message').last()).toBeInViewport();
  const openMs = await page.evaluate(
    async ({ t0, ready }) => {
      await new Function(`return (${ready})()`)();
      return Math.round(performance.now() - t0);
    },
    { t0: opened, ready: viewportReady.toString() }
  );
  // Everything rendered (off-screen figures and views, every message's Markdown): the scroll is
  // measured on a settled chat.
  await expect(chat(page).locator('.jp-FigureChat-lazy')).toHaveCount(0, { timeout: 120000 });
  await expect(chat(page).locator('.jp-FigureChat-vision[data-views="rendering"]')).toHaveCount(0, {
    timeout: 120000
  });
  const assistants = chat(page).locator('.jp-FigureChat-message-mod-assistant');
  await expect
    .poll(
      () =>
        assistants.evaluateAll(
          all => all.filter(message => !message.querySelector('.jp-FigureChat-block')).length
        ),
      { timeout: 120000 }
    )
    .toBe(0);
  const allMs = await page.evaluate(t0 => Math.round(performance.now() - t0), opened);
  const openTasks = await stopLongTasks(page);
  await stopProfile(openProfile, 'open');
  await stopTrace(openTrace, 'open');
  console.log(
    `bench open: newest messages and their pictures on screen ${openMs} ms after the open command, everything rendered at ${allMs} ms; ${describe(openTasks)}`
  );

  // Scroll: top to bottom, 120 px a frame, as a fast wheel does; frame intervals from rAF.
  await startLongTasks(page);
  const scrollProfile = await startProfile(page);
  const scrollTrace = await startTrace(page);
  const frames = await page.evaluate(async () => {
    const scroller = document.querySelector(
      '#jp-figure-chat-sidebar .jp-FigureChat-view:not(.lm-mod-hidden) .jp-FigureChat-scroller'
    ) as HTMLElement;
    // The reader scrolls up (a wheel turn), then all the way to the top.
    scroller.dispatchEvent(new WheelEvent('wheel', { deltaY: -120 }));
    scroller.scrollTop = 0;
    await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const intervals: number[] = [];
    let last = performance.now();
    const started = last;
    await new Promise<void>(resolve => {
      const step = (now: number): void => {
        intervals.push(now - last);
        last = now;
        const end = scroller.scrollHeight - scroller.clientHeight;
        if (scroller.scrollTop >= end - 1) {
          resolve();
          return;
        }
        scroller.scrollTop = Math.min(end, scroller.scrollTop + 120);
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    });
    const sorted = [...intervals].sort((a, b) => a - b);
    const at = (q: number): number =>
      sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    return {
      frames: intervals.length,
      height: scroller.scrollHeight,
      seconds: (performance.now() - started) / 1000,
      median: at(0.5),
      p95: at(0.95),
      over50: intervals.filter(i => i > 50).length,
      worst: sorted[sorted.length - 1]
    };
  });
  const scrollTasks = await stopLongTasks(page);
  await stopProfile(scrollProfile, 'scroll');
  await stopTrace(scrollTrace, 'scroll');
  console.log(
    `bench scroll: ${frames.frames} frames over ${frames.height} px in ${frames.seconds.toFixed(1)} s; frame interval median ${frames.median.toFixed(1)} ms, p95 ${frames.p95.toFixed(1)} ms, worst ${Math.round(frames.worst)} ms, ${frames.over50} frames > 50 ms; ${describe(scrollTasks)}`
  );

  // Stream: a 2 MB reply, one character per SSE event.
  const input = chat(page).locator('.jp-FigureChat-input');
  await input.fill('[script:stream-2mb] a very long answer');
  await startLongTasks(page);
  const sent = await page.evaluate(() => {
    const w = window as unknown as { benchFirst?: Element; benchAdded: number };
    w.benchAdded = 0;
    const messages = document.querySelector(
      '#jp-figure-chat-sidebar .jp-FigureChat-view:not(.lm-mod-hidden) .jp-FigureChat-messages'
    ) as HTMLElement;
    // Count Markdown blocks put into the page: incremental rendering adds each finished block once
    // (plus the open block again as it grows).
    new MutationObserver(records => {
      for (const record of records) {
        record.addedNodes.forEach(node => {
          if (node instanceof HTMLElement && node.classList.contains('jp-FigureChat-block')) {
            w.benchAdded += 1;
            w.benchFirst ??= node;
          }
        });
      }
    }).observe(messages, { childList: true, subtree: true });
    return performance.now();
  });
  const streamProfile = await startProfile(page);
  const streamTrace = await startTrace(page);
  await input.press('Enter');
  await expect(chat(page).locator('.jp-FigureChat-send')).toHaveText('Stop');
  await expect(chat(page).locator('.jp-FigureChat-send')).toHaveText('Send', { timeout: 240000 });
  const stream = await page.evaluate(async t0 => {
    const w = window as unknown as { benchFirst?: Element; benchAdded: number };
    const reply = Array.from(
      document.querySelectorAll(
        '#jp-figure-chat-sidebar .jp-FigureChat-view:not(.lm-mod-hidden) .jp-FigureChat-message-mod-assistant'
      )
    ).pop() as HTMLElement;
    // Let the last render job land.
    await new Promise(resolve => setTimeout(resolve, 0));
    return {
      seconds: (performance.now() - t0) / 1000,
      blocks: reply.querySelectorAll('.jp-FigureChat-block').length,
      added: w.benchAdded,
      firstKept: !!w.benchFirst?.isConnected,
      plain: reply.querySelector('.jp-FigureChat-plainNote')?.textContent ?? '',
      error: reply.querySelector('.jp-FigureChat-error, [role="alert"]')?.textContent ?? ''
    };
  }, sent);
  const streamTasks = await stopLongTasks(page);
  await stopProfile(streamProfile, 'stream');
  await stopTrace(streamTrace, 'stream');
  console.log(
    `bench stream: 2 MB reply in 1-character deltas over ${stream.seconds.toFixed(1)} s; ${describe(streamTasks)}; ${stream.blocks} Markdown blocks shown, ${stream.added} block elements added in all (first block kept: ${stream.firstKept}); ${stream.plain} ${stream.error}`
  );
});
