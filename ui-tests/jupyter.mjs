/**
 * Start, stop and restart the Jupyter server the tests talk to. The process id lives in a file so
 * the global set-up, the tests and the global tear-down (separate processes) share it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// A config that runs beside another (scripts/test.sh runs the three small ones at once) names its
// own folder (FIGURE_CHAT_TEST_RUNTIME, relative to ui-tests/), so that one server's fresh start
// never wipes another's root.
export const RUNTIME = resolve(here, process.env.FIGURE_CHAT_TEST_RUNTIME ?? '.jupyter-runtime');
export const ROOT = join(RUNTIME, 'root');
const PID_FILE = join(RUNTIME, 'jupyter.pid');
const LOG_FILE = join(RUNTIME, 'jupyter.log');
export const PORT = Number(process.env.FIGURE_CHAT_TEST_PORT ?? 8888);
// The server's base URL path, as a JupyterHub single-user server has (`/user/alice/`); ends in `/`.
export const BASE_PATH = process.env.FIGURE_CHAT_TEST_BASE_URL ?? '/';
export const BASE_URL = `http://127.0.0.1:${PORT}${BASE_PATH}`;
// `jupyter lab`, or `jupyter notebook` for Notebook 7 (playwright.notebook.config.js).
const APP = process.env.FIGURE_CHAT_TEST_APP ?? 'lab';
// Another environment's `jupyter` (the collaboration test's own venv), else the checkout's .venv.
const JUPYTER = process.env.FIGURE_CHAT_TEST_JUPYTER ?? join(here, '..', '.venv', 'bin', 'jupyter');

async function waitFor(check, what, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise(done => setTimeout(done, 200));
  }
  throw new Error(`timed out waiting for ${what}; see ${LOG_FILE}`);
}

async function answers() {
  try {
    // A server that is shutting down may accept a connection and never answer: bound each try.
    const response = await fetch(`${BASE_URL}api`, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** Start JupyterLab on the test root; resolves once it answers. */
export async function startJupyter({ fresh = false } = {}) {
  if (fresh) rmSync(RUNTIME, { recursive: true, force: true });
  mkdirSync(ROOT, { recursive: true });
  const log = openSync(LOG_FILE, 'a');
  const child = spawn(
    existsSync(JUPYTER) ? JUPYTER : 'jupyter',
    [APP, '--config', join(here, 'jupyter_server_test_config.py'), '--ServerApp.ip=127.0.0.1'],
    {
      cwd: ROOT,
      env: { ...process.env, FIGURE_CHAT_TEST_ROOT: ROOT, FIGURE_CHAT_TEST_PORT: String(PORT) },
      stdio: ['ignore', log, log],
      detached: true
    }
  );
  child.unref();
  writeFileSync(PID_FILE, String(child.pid));
  await waitFor(answers, 'JupyterLab to answer');
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stop JupyterLab and everything it started (kernels, the figure server); never throws. */
export async function stopJupyter() {
  if (!existsSync(PID_FILE)) return;
  const pid = Number(readFileSync(PID_FILE, 'utf8'));
  rmSync(PID_FILE, { force: true });
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  const stopped = await waitFor(
    async () => !groupAlive(pid) || !(await answers()),
    'JupyterLab to stop',
    20000
  )
    .then(() => true)
    .catch(() => false);
  if (!stopped || groupAlive(pid)) {
    // Whatever is left (a kernel, the figure server) goes too, so the next start finds a free port.
    await waitFor(async () => !groupAlive(pid), 'the Jupyter process group to exit', 5000).catch(
      () => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    );
  }
}

/** Stop and start again on the same root, as a user restarting JupyterLab. */
export async function restartJupyter() {
  await stopJupyter();
  await startJupyter();
}
