/**
 * The worker thread of the SVG check pool (`./svg`): it receives one figure at a time and posts
 * back its check. Bundled as its own file (`svg-worker.cjs`) beside the figure server.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { checkSvg } from './check';
import { checkAndRaster, type FigureRasterSize, type SvgWorkerAnswer } from './raster';

/** What the pool sends: the figure's source, and the size to draw it at when it is to be drawn. */
export interface SvgWorkerRequest {
  readonly svg: string;
  readonly raster?: FigureRasterSize;
}

/** What the pool gives every worker: where the bundled fonts are. */
export interface SvgWorkerData {
  readonly fontDirectory: string;
}

const { fontDirectory } = workerData as SvgWorkerData;

parentPort?.on('message', (request: SvgWorkerRequest) => {
  try {
    const value: SvgWorkerAnswer = request.raster
      ? checkAndRaster(request.svg, request.raster, fontDirectory)
      : { check: checkSvg(request.svg, fontDirectory) };
    parentPort?.postMessage({ ok: true, value });
  } catch (error) {
    // Only a broken installation (no fonts) lands here; a bad figure is an answer, not an error.
    parentPort?.postMessage({
      ok: false,
      message: error instanceof Error ? error.message : String(error)
    });
  }
});
