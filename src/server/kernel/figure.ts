/**
 * The `figure` op of `figure-chat kernel`, for Python's `Figure`: the chat's `present_svg` handler
 * decides, and resvg renders the PNG fallback the output carries.
 */
import { Resvg } from '@resvg/resvg-js';
import { z } from 'zod';

import type { ToolHost } from '../../tools/host';
import type { ToolRegistry } from '../../tools/registry';
import { presentSvgInput } from '../../tools/svg';
import { CheckSvgRequest } from '../../tools/wire';
import { KernelOpError, type KernelAnswer } from './answer';
import { checkSvg } from '../svg/svg';
import { resvgOptions } from '../svg/fonts';

/** Most pixels of a figure's PNG fallback: crisp at 2× for small figures, bounded for large ones. */
export const FIGURE_PNG_MAX_PIXELS = 4_000_000;

export const FigureRequest = z.object({ svg: z.unknown(), alt: z.unknown() });

/**
 * `figure { svg, alt }`: the registry's `present_svg` handler (its arguments checked by the tool's
 * schema, the SVG by its `check-svg` call, answered here in process), then a PNG fallback
 * rendered by resvg.
 */
export async function figureOp(
  registry: ToolRegistry,
  body: z.infer<typeof FigureRequest>
): Promise<KernelAnswer> {
  const tool = registry.get('present_svg');
  const args = presentSvgInput.safeParse({ svg: body.svg, alt: body.alt });
  if (!tool || !args.success) {
    const issue = args.success ? undefined : args.error.issues[0];
    throw new KernelOpError('svg', 'bad-args', issue?.message ?? 'svg and alt are required');
  }
  let check: ReturnType<typeof checkSvg> | undefined;
  const host: ToolHost = {
    kind: 'figure-chat-kernel',
    cells: () => null,
    pictureData: () => undefined,
    request: <T>(route: string, request: unknown): Promise<T> => {
      const parsed = CheckSvgRequest.safeParse(request);
      if (route !== 'check-svg' || !parsed.success) {
        return Promise.reject(
          new KernelOpError('request', 'bad-request', `the kernel program has no ${route} route`)
        );
      }
      check = checkSvg(parsed.data.svg);
      const answer = check.ok ? { ok: true, ...check.value } : { ok: false, error: check.error };
      return Promise.resolve(answer as T);
    },
    vision: { messages: () => [], owner: {} }
  };
  const output = await tool.run(args.data, { signal: new AbortController().signal, host });
  if (!check) {
    throw new KernelOpError('svg', 'bad-args', output.text.replace(/^Tool error: /, ''));
  }
  if (!check.ok) {
    throw new KernelOpError('svg', check.error.kind, check.error.message);
  }
  // Only now, with the size checked against the policy's limits, does resvg render.
  const { width, height } = check.value;
  const png = renderFigurePng(args.data.svg, width, height);
  return {
    json: { width, height, pngWidth: png.width, pngHeight: png.height },
    payload: png.bytes
  };
}

/**
 * The PNG of a figure `checkSvg` passed (never call it on an unchecked SVG: resvg reads local
 * files and has no memory limit), at up to 2× its intrinsic size and at most
 * {@link FIGURE_PNG_MAX_PIXELS}.
 */
export function renderFigurePng(
  svg: string,
  width: number,
  height: number
): { bytes: Buffer; width: number; height: number } {
  const scale = Math.min(2, Math.sqrt(FIGURE_PNG_MAX_PIXELS / (width * height)));
  const rendered = new Resvg(svg, {
    ...resvgOptions(),
    fitTo: { mode: 'zoom', value: scale }
  }).render();
  return { bytes: rendered.asPng(), width: rendered.width, height: rendered.height };
}
