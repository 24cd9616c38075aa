/**
 * Where one vision render's time goes (issue 13): the views of bench/vision.mjs (a 4000×3000 JPEG
 * with 50 marks as a map, a close-up and a 9-tile sheet) rendered one at a time, cold (caches
 * emptied first) and again with mark #7 moved (the decode kept), and for each the median time,
 * from the render's start, at which each stage ended (src/server/render/stages.ts):
 * - decoded: the pixels the view needs decoded (not reached when they were kept);
 * - overlay: the overlay drawn and rasterized, beside the decode;
 * - panes: the panes resized and placed;
 * - composited: the overlay over them;
 * - encoded: the PNG written (the render's end).
 * With them, the V8 garbage collections that fell inside a render (main-thread pauses, from
 * perf_hooks) and the process' CPU time per render: on two cores, what the other core did while
 * the decode ran. Renders run in the figure server's allocator environment (./server-env.mjs).
 * Stage timings stretch with the machine's load; compare runs side by side.
 *
 *   node bench/vision-timeline.mjs [--renders N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';

import { benchPicture, VIEW_SPECS, withSevenMoved } from './bench-picture.mjs';
import { loadSources, repo } from './load-sources.mjs';
import { rerunAsServer, serverEnvLine } from './server-env.mjs';
import { table } from './table.mjs';

const at = process.argv.indexOf('--renders');
const RENDERS = at > 0 ? Number(process.argv[at + 1]) : 15;
const STAGES = ['decoded', 'overlay', 'panes', 'composited', 'encoded'];

const median = values => {
  if (!values.length) {
    return undefined;
  }
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const fmt = value => (value === undefined ? '–' : value.toFixed(1));

async function main() {
  const rerun = rerunAsServer();
  if (rerun !== undefined) {
    process.exitCode = rerun;
    return;
  }
  const sharp = createRequire(join(repo, 'package.json'))('sharp');
  const fc = await loadSources('vision-timeline', [
    "export * from './src/server/render/render';",
    "export * from './src/server/render/stages';",
    "export * from './src/server/pictures/pictures';",
    "export * from './src/tools/vision';"
  ]);
  const work = mkdtempSync(join(tmpdir(), 'fc-bench-timeline-'));
  try {
    const { picture, record } = await benchPicture(fc, sharp, work);
    const specs = VIEW_SPECS;
    const pauses = [];
    const gc = new PerformanceObserver(list => {
      for (const entry of list.getEntries()) {
        const major = entry.detail?.kind !== constants.NODE_PERFORMANCE_GC_MINOR;
        pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration, major });
      }
    });
    gc.observe({ entryTypes: ['gc'] });
    let moved = 0;
    /** One render, timed stage by stage. */
    const timed = async (spec, marks) => {
      const ended = {};
      let start = 0;
      fc.observeRenderStages((stage, when) => {
        ended[stage] ??= when - start;
      });
      pauses.length = 0;
      const cpu = process.cpuUsage();
      start = performance.now();
      await fc.renderView(picture, spec, marks);
      const end = performance.now();
      const used = process.cpuUsage(cpu);
      fc.observeRenderStages(undefined);
      // Collections are reported after they end: wait for this render's.
      await new Promise(resolve => setImmediate(resolve));
      const inside = pauses.filter(pause => pause.end > start && pause.start < end);
      const ms = some =>
        some.reduce((sum, p) => sum + Math.min(p.end, end) - Math.max(p.start, start), 0);
      return {
        ...ended,
        total: end - start,
        minor: ms(inside.filter(pause => !pause.major)),
        major: ms(inside.filter(pause => pause.major)),
        cpu: (used.user + used.system) / 1000
      };
    };
    const rows = [
      ['view', 'render', ...STAGES, 'total', 'GC: scavenges', 'GC: mark-compacts', 'CPU']
    ];
    for (const [name, spec] of Object.entries(specs)) {
      for (const kind of ['cold', '#7 moved']) {
        const runs = [];
        await fc.renderView(picture, spec, record);
        for (let i = 0; i < RENDERS + 1; i++) {
          fc.clearRenderCaches(kind === 'cold' ? 'all' : 'views');
          const run = await timed(spec, kind === 'cold' ? record : withSevenMoved(record, ++moved));
          // The first render of each kind warms what the process keeps (code, glyphs).
          if (i > 0) {
            runs.push(run);
          }
        }
        const of = key => median(runs.filter(run => run[key] !== undefined).map(run => run[key]));
        rows.push([
          name,
          kind,
          ...STAGES.map(stage => fmt(of(stage))),
          fmt(of('total')),
          fmt(of('minor')),
          fmt(of('major')),
          fmt(of('cpu'))
        ]);
      }
    }
    gc.disconnect();
    console.log(
      `When each stage of a render ended, ms from its start (medians of ${RENDERS} renders each; ${availableParallelism()} cores, load ${loadavg()
        .map(load => load.toFixed(1))
        .join(' ')}):`
    );
    console.log(table(rows).join('\n'));
    console.log(serverEnvLine());
    console.log(
      "'decoded' is missing where the picture's pixels were kept. 'overlay' ends beside the decode; the panes are placed after it, then the overlay composited and the view encoded. GC: the main thread's garbage-collection pauses inside the render (scavenges of the young generation; mark-compacts, with their incremental steps); CPU: the process' CPU time per render (all threads)."
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
