/**
 * `check-svg` on the figure server: the pure policy first, then a resvg parse of what passed
 * (`./svg-check`), run in a bounded pool of worker threads, as a JSON route and the
 * `figure-chat check-svg` command.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type * as Esbuild from 'esbuild';
import { z } from 'zod';

import { type SvgCheck } from '../../tools/svg';
import { HttpError, type JsonRoute } from '../http/http';
import { fontDirectory } from './fonts';
import type { SvgWorkerAnswer } from './raster';
import type { SvgWorkerData, SvgWorkerRequest } from './worker';
import {
  WorkerPool,
  WorkerPoolBusyError,
  WorkerTimeoutError,
  type WorkerPoolOptions
} from './worker-pool';

export { checkSvg } from './check';

/**
 * Threads checking figures at once: one for large figures and one kept for small ones, so a
 * small figure is answered promptly while large ones are parsed, and large ones never take more
 * than one core from the thread that answers requests (machines with 2 cores are common).
 */
export const SVG_CHECK_WORKERS = 2;

/**
 * Longest one check may take. Within the policy's limits a check takes well under a second even
 * on a busy machine; past this the worker is stopped and the figure refused.
 */
export const SVG_CHECK_TIMEOUT_MS = 10_000;

/** Figures that may wait for a worker; more are answered 503 "busy, retry". */
export const SVG_CHECK_MAX_WAITING = 64;

/** Figures up to this many UTF-16 units are "small": they may use the worker kept free. */
export const SVG_SMALL_FIGURE = 4096;

/** The worker's bundled file, beside the figure server's own (see scripts/bundle-server.mjs). */
export const SVG_WORKER_FILE = 'svg-worker.cjs';

/**
 * The worker script: the bundled file beside this one in an installation; in a source checkout
 * (jest, benchmarks), `worker.ts` bundled once by esbuild, which a checkout has, into
 * `node_modules/.cache` so that the worker resolves resvg from the checkout's node_modules.
 */
function svgWorkerScript(): string {
  const bundled = join(__dirname, SVG_WORKER_FILE);
  if (existsSync(bundled)) {
    return bundled;
  }
  const source = join(__dirname, 'worker.ts');
  const cache = join(__dirname, '..', '..', '..', 'node_modules', '.cache', 'figure-chat');
  // Loaded only from a source checkout, where esbuild is a dev dependency.
  const esbuild = require('esbuild') as typeof Esbuild;
  const [bundle] = esbuild.buildSync({
    entryPoints: [source],
    write: false,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['@resvg/resvg-js', 'sharp'],
    logLevel: 'error'
  }).outputFiles;
  const digest = createHash('sha256').update(bundle.contents).digest('hex').slice(0, 16);
  const out = join(cache, `svg-worker-${digest}.cjs`);
  if (!existsSync(out)) {
    // Written aside, then renamed, since test files run in parallel processes.
    mkdirSync(cache, { recursive: true });
    const temporary = `${out}.${process.pid}.tmp`;
    writeFileSync(temporary, bundle.contents);
    renameSync(temporary, out);
  }
  return out;
}

let pool: WorkerPool<SvgWorkerRequest, SvgWorkerAnswer> | undefined;

/** The pool (started on first use) that checks and draws figures. */
export function svgCheckPool(): WorkerPool<SvgWorkerRequest, SvgWorkerAnswer> {
  if (!pool) {
    const workerData: SvgWorkerData = { fontDirectory: fontDirectory() };
    const options: WorkerPoolOptions = {
      script: svgWorkerScript,
      workerData,
      size: SVG_CHECK_WORKERS,
      timeoutMs: SVG_CHECK_TIMEOUT_MS,
      maxWaiting: SVG_CHECK_MAX_WAITING,
      maxHeapMb: 128
    };
    pool = new WorkerPool(options);
  }
  return pool;
}

/**
 * `checkSvg` in the worker pool, so that resvg's parse (as slow as the figure makes it) never
 * holds the thread that answers other requests. A check over its time limit is a rejection.
 *
 * @throws HttpError 503 when too many figures are waiting.
 */
export async function checkSvgOffThread(svg: string): Promise<SvgCheck> {
  try {
    return (await svgCheckPool().run({ svg }, svg.length > SVG_SMALL_FIGURE)).check;
  } catch (error) {
    if (error instanceof WorkerTimeoutError) {
      return {
        ok: false,
        error: {
          kind: 'complexity',
          message: `SVG took longer than ${SVG_CHECK_TIMEOUT_MS / 1000} s to check and was stopped; simplify the figure (less text, fewer elements and filters)`
        }
      };
    }
    if (error instanceof WorkerPoolBusyError) {
      throw new HttpError(
        503,
        `The figure server is checking ${error.waiting} figures already; retry in a few seconds.`,
        'busy'
      );
    }
    throw error;
  }
}

/** Stop the check workers (tests, and a server shutting down). */
export async function closeSvgCheckPool(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.close();
}

const CheckSvgRequest = z.object({ svg: z.string() });

/**
 * `POST check-svg { svg }`: `{ ok: true, width, height, nodes }` or `{ ok: false, error: { kind,
 * message } }`, both with status 200 since a rejected figure is an answer, not a failure. Only a
 * body without a string `svg` is a 400.
 */
export const checkSvgRoute: JsonRoute = async body => {
  const request = CheckSvgRequest.safeParse(body);
  if (!request.success) {
    throw new HttpError(
      400,
      'check-svg expects a JSON body {"svg": "<svg …>…</svg>"}',
      'bad-request'
    );
  }
  const result = await checkSvgOffThread(request.data.svg);
  return { json: result.ok ? { ok: true, ...result.value } : { ok: false, error: result.error } };
};

/** What `figure-chat check-svg` needs from its process, so tests can run it in memory. */
export interface CheckSvgIo {
  readFile(path: string): Promise<string>;
  stdin(): Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
}

const CHECK_SVG_USAGE = 'usage: figure-chat check-svg FILE|- [--json]\n';

/**
 * `figure-chat check-svg FILE|- [--json]`: exit 0 when the figure is valid, 1 when rejected (the
 * message on stderr), 2 on a usage error or an unreadable file. `--json` prints the result on
 * stdout as `{ ok, width, height, nodes }` or `{ ok, error: { kind, message } }`.
 *
 * @param argv - the arguments after `check-svg`.
 */
export async function checkSvgCommand(argv: string[], io: CheckSvgIo): Promise<number> {
  const json = argv.includes('--json');
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout(CHECK_SVG_USAGE);
    return 0;
  }
  const files = argv.filter(arg => arg !== '--json');
  const unknown = files.find(arg => arg.startsWith('-') && arg !== '-');
  if (unknown !== undefined || files.length !== 1) {
    io.stderr(
      `figure-chat check-svg: ${unknown !== undefined ? `unknown option ${unknown}` : 'give exactly one FILE or -'}\n${CHECK_SVG_USAGE}`
    );
    return 2;
  }
  const [file] = files;
  let source: string;
  try {
    source = file === '-' ? await io.stdin() : await io.readFile(file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr(`figure-chat check-svg: cannot read ${file}: ${reason}\n`);
    return 2;
  }
  const result = await checkSvgOffThread(source);
  if (json) {
    const document = result.ok ? { ok: true, ...result.value } : { ok: false, error: result.error };
    io.stdout(`${JSON.stringify(document)}\n`);
  }
  if (!result.ok) {
    io.stderr(`${result.error.message}\n`);
    return 1;
  }
  if (!json) {
    const { width, height, nodes } = result.value;
    io.stdout(`SVG ok: ${width}×${height} px, ${nodes} elements\n`);
  }
  return 0;
}
