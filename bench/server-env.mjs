/**
 * The figure server's allocator environment, for the vision benchmarks: they time renders in the
 * environment the server runs them in (jupyterlab_figure_chat/runtime.py: two malloc arenas,
 * buffers over 128 KiB mapped and unmapped, `--expose-gc`), not glibc's defaults. That
 * environment lets memory come back after a burst (bench/vision.mjs measures it), and it costs
 * each large buffer its page faults: measured 2026-12-02, cold views took 2–8 ms longer in it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { repo } from './load-sources.mjs';

/** Set in a benchmark re-run under the server's environment. */
const MARKER = 'FIGURE_CHAT_BENCH_SERVER_ENV';

/** The Python with Pillow, NumPy and matplotlib (the peers), and the project importable. */
export function pythonInterpreter() {
  const candidates = [join(repo, '.venv/bin/python')];
  return candidates.find(existsSync) ?? process.env.FIGURE_CHAT_BENCH_PYTHON ?? 'python3';
}

/**
 * The allocator environment the figure server runs with, read from jupyterlab_figure_chat/runtime.py
 * (what the proxy gives the server it spawns), so the bench measures what ships.
 */
export function serverAllocatorEnv() {
  const result = spawnSync(
    pythonInterpreter(),
    [
      '-c',
      'import json; from jupyterlab_figure_chat.runtime import server_environment; print(json.dumps(server_environment()))'
    ],
    { cwd: repo, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } }
  );
  if (result.status !== 0) {
    throw new Error(`cannot read the figure server's environment: ${result.stderr.trim()}`);
  }
  const env = JSON.parse(result.stdout);
  return Object.fromEntries(
    Object.entries(env).filter(([key]) => key.startsWith('MALLOC_') || key === 'NODE_OPTIONS')
  );
}

/**
 * Run this benchmark again in the server's allocator environment, unless it already runs in it:
 * returns the re-run's exit code, or `undefined` in the re-run itself (go on). glibc reads its
 * malloc settings when the process starts, so they cannot be set from inside it.
 */
export function rerunAsServer() {
  if (process.env[MARKER] === '1') {
    return undefined;
  }
  const env = { ...process.env, ...serverAllocatorEnv(), [MARKER]: '1' };
  const result = spawnSync(process.execPath, process.argv.slice(1), { env, stdio: 'inherit' });
  return result.status ?? 1;
}

/** What the server's allocator environment says, for a benchmark's report. */
export function serverEnvLine() {
  const said = Object.entries(serverAllocatorEnv())
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  return `Renders timed in the figure server's allocator environment (${said}); the Python peers in their own default one.`;
}

/** `env` without the server's malloc settings: the peers run as they would anywhere. */
export function withoutServerAllocator(env) {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('MALLOC_')));
}
