/**
 * The worker thread of the SVG check pool (`./svg`): it receives one figure at a time and posts
 * back its check. Bundled as its own file (`svg-worker.cjs`) beside the figure server.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { checkSvg } from './check';

/** What the pool sends: the figure's source. */
export interface SvgWorkerRequest {
  readonly svg: string;
}

/** What the pool gives every worker: where the bundled fonts are. */
export interface SvgWorkerData {
  readonly fontDirectory: string;
}

const { fontDirectory } = workerData as SvgWorkerData;

parentPort?.on('message', (request: SvgWorkerRequest) => {
  try {
    parentPort?.postMessage({ ok: true, value: checkSvg(request.svg, fontDirectory) });
  } catch (error) {
    // Only a broken installation (no fonts) lands here; a bad figure is an answer, not an error.
    parentPort?.postMessage({
      ok: false,
      message: error instanceof Error ? error.message : String(error)
    });
  }
});
