/**
 * A real llama.cpp `llama-server` for tests, built by `scripts/build-llama-server.sh` (cached
 * outside the clone, keyed by version) and serving the tiny random-weights model that
 * `tests/llama_tiny_model.py` writes. Only on 127.0.0.1.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

const VERSION = process.env.LLAMA_CPP_PYTHON_VERSION ?? '0.3.36';
const CACHE =
  process.env.FIGURE_CHAT_LLAMA_CACHE ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'figure-chat', 'llama-server');
const BINARY = join(CACHE, VERSION, 'llama-server');
const TEMPLATE = join(CACHE, VERSION, 'qwen2.5.jinja');
const REPO = join(__dirname, '..', '..', '..');

/** Why the real server cannot run here, or null when it can. */
export function llamaServerSkipReason(): string | null {
  if (existsSync(BINARY) && existsSync(TEMPLATE)) {
    return null;
  }
  const recorded = join(CACHE, 'skip-reason');
  return existsSync(recorded)
    ? `llama-server was not built: ${readFileSync(recorded, 'utf8').trim()}`
    : `llama-server ${VERSION} is not built; run bash scripts/build-llama-server.sh`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>(resolve => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) {
    throw new Error('no free port');
  }
  return address.port;
}

/** A running server: its `/v1` endpoint and how to stop it. */
export interface LlamaServer {
  readonly endpoint: string;
  log(): string;
  stop(): Promise<void>;
}

/** Start the real server on the tiny model; resolves once `/health` answers. */
export async function startLlamaServer(): Promise<LlamaServer> {
  const folder = mkdtempSync(join(tmpdir(), 'figure-chat-llama-'));
  const python = existsSync(join(REPO, '.venv', 'bin', 'python'))
    ? join(REPO, '.venv', 'bin', 'python')
    : 'python3';
  const model = join(folder, 'tiny.gguf');
  const biases = JSON.parse(
    execFileSync(python, [join(REPO, 'tests', 'llama_tiny_model.py'), model, TEMPLATE], {
      encoding: 'utf8'
    })
  ) as Record<string, number>;
  const port = await freePort();
  const args = ['-m', model, '--host', '127.0.0.1', '--port', String(port)];
  args.push('--jinja', '-c', '2048', '-n', '96', '-np', '1', '-t', '2', '--seed', '1');
  for (const [token, bias] of Object.entries(biases)) {
    args.push('-l', `${token}+${bias}`);
  }
  const child: ChildProcess = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      const exited = new Promise(resolve => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(folder, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`llama-server exited: ${output.slice(-2000)}`);
    }
    const healthy = await fetch(`${url}/health`)
      .then(response => response.ok)
      .catch(() => false);
    if (healthy) {
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`llama-server did not become healthy within 60 s: ${output.slice(-2000)}`);
    }
    await new Promise(resolve => setTimeout(resolve, 200));
  }
  return { endpoint: `${url}/v1`, log: () => output, stop };
}
