/**
 * FIGURE_CHAT_BENCH_PROFILE=1: a CPU profile of the page's main thread over CDP, summarised as the
 * functions with the most self time, for finding what a benchmark's milliseconds are spent on.
 */
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
