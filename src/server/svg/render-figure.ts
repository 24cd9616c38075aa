/**
 * `POST render-figure { svg, width, ratio }`: a figure drawn by the figure server for the chat,
 * which shows the PNG in place of an SVG the browser would rasterise again on every repaint
 * (filter effects: up to a second each). The SVG is checked again with `check-svg`'s policy and
 * drawn in the same bounded worker pool, never on the thread that answers requests.
 */
import { BINARY_CONTENT_TYPE, RenderFigureRequest } from '../../tools/wire';
import { HttpError, type JsonRoute } from '../http/http';
import { SVG_CHECK_TIMEOUT_MS, svgCheckPool } from './svg';
import { WorkerPoolBusyError, WorkerTimeoutError } from './worker-pool';

/** Draw a figure in the pool; a refused, too slow or unreadable figure is an `HttpError`. */
export async function renderFigureOffThread(
  request: RenderFigureRequest
): Promise<{ png: Buffer; ms: number }> {
  const started = performance.now();
  let answer;
  try {
    answer = await svgCheckPool().run(
      { svg: request.svg, raster: { width: request.width, ratio: request.ratio } },
      true
    );
  } catch (error) {
    if (error instanceof WorkerTimeoutError) {
      throw new HttpError(
        422,
        `The figure took longer than ${SVG_CHECK_TIMEOUT_MS / 1000} s to draw and was stopped; simplify it (fewer or smaller filter effects)`,
        'too-costly'
      );
    }
    if (error instanceof WorkerPoolBusyError) {
      throw new HttpError(
        503,
        `The figure server is drawing ${error.waiting} figures already; retry in a few seconds.`,
        'busy'
      );
    }
    throw error;
  }
  if (!answer.check.ok) {
    throw new HttpError(422, answer.check.error.message, answer.check.error.kind);
  }
  if (!answer.png) {
    throw new HttpError(500, 'The figure server checked the figure but drew nothing', 'internal');
  }
  const png = Buffer.from(answer.png.buffer, answer.png.byteOffset, answer.png.byteLength);
  return { png, ms: performance.now() - started };
}

export const renderFigureRoute: JsonRoute = async body => {
  const request = RenderFigureRequest.safeParse(body);
  if (!request.success) {
    const issue = request.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'body';
    throw new HttpError(
      400,
      `render-figure expects {"svg": "<svg …>", "width": 1–4096, "ratio": 0.25–3}; ${where}: ${issue?.message}`,
      'bad-request'
    );
  }
  const { png, ms } = await renderFigureOffThread(request.data);
  return { bytes: png, contentType: BINARY_CONTENT_TYPE, timing: { draw: ms } };
};
