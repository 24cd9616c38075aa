/**
 * A real llama.cpp `llama-server` for tests, built by `scripts/build-llama-server.sh` (cached
 * outside the clone, keyed by version) and serving the tiny model that `tests/llama_tiny_model.py`
 * writes (its next token is fixed by the last one: "Here is the figure.", or that text and a
 * `present_svg` call when `tool_choice` is "required"). Only on 127.0.0.1.
 *
 * Two slots of 2048 tokens with `--context-shift`: a request for two completions (`n: 2`) that
 * fills its slot then gets llama-server's own mid-stream error, "context shift cannot be used for
 * shared prompt" (tools/server/server-context.cpp, `pre_decode`).
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

/** Token ids of the tiny model that a test biases per request (`logit_bias`). */
export interface TinyModelTokens {
  readonly tool_call: number;
  readonly eos: number;
}

/** A running server: its `/v1` endpoint and how to stop it. */
export interface LlamaServer {
  readonly endpoint: string;
  readonly tokens: TinyModelTokens;
  log(): string;
  stop(): Promise<void>;
}

/**
 * Start the real server on the tiny model; resolves once `/health` answers. `context` is the
 * total of the two slots: 4096 holds a tool round; a smaller one fills sooner.
 */
export async function startLlamaServer(context = 4096): Promise<LlamaServer> {
  const folder = mkdtempSync(join(tmpdir(), 'figure-chat-llama-'));
  const python = existsSync(join(REPO, '.venv', 'bin', 'python'))
    ? join(REPO, '.venv', 'bin', 'python')
    : 'python3';
  const model = join(folder, 'tiny.gguf');
  const tokens = JSON.parse(
    execFileSync(python, [join(REPO, 'tests', 'llama_tiny_model.py'), model, TEMPLATE], {
      encoding: 'utf8'
    })
  ) as TinyModelTokens;
  const port = await freePort();
  const args = ['-m', model, '--host', '127.0.0.1', '--port', String(port)];
  args.push('--jinja', '-c', String(context), '-np', '2', '--context-shift');
  // One thread: ggml's threads spin-wait for each other, which on a loaded 2-core machine made
  // each token take 50–400 ms instead of under 10 (the model is tiny; one thread is plenty).
  args.push('-n', '256', '-t', '1', '-tb', '1', '--seed', '1');
  const child: ChildProcess = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      const exited = new Promise(resolve => child.once('exit', resolve));
      child.kill('SIGTERM');
      // It waits for a request still streaming; a test that ends mid-request must not hang here.
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(force);
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
  return { endpoint: `${url}/v1`, tokens, log: () => output, stop };
}
