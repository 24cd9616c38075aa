/**
 * The check of a model-authored figure itself: the pure policy, then a resvg parse of what
 * passed. Synchronous, and as slow as resvg is on the figure, so the figure server runs it in
 * its worker pool (`./svg`); the CLI and benchmarks may call it directly.
 */
import { Resvg } from '@resvg/resvg-js';

import {
  checkSvgPolicy,
  SVG_MAX_AREA,
  SVG_MAX_SIDE,
  type SvgCheck,
  type SvgRejection
} from '../../tools/svg';
import { resvgOptions } from './fonts';

function rejection(kind: SvgRejection['kind'], message: string): SvgCheck {
  return { ok: false, error: { kind, message } };
}

/**
 * Check a model-authored figure: `checkSvgPolicy`, then (only if it passed) a resvg parse that
 * must give a non-empty tree and a sane intrinsic size. resvg reads local files for non-data
 * hrefs and has no memory limit, which is why nothing reaches it before the policy; it is asked
 * only to parse and measure, never to render. Never throws for any input.
 *
 * @param fontDirectory - the bundled fonts' folder, when the caller knows it (a worker thread).
 * @throws FontsUnavailableError when the installation's fonts are missing.
 */
export function checkSvg(svg: string, fontDirectory?: string): SvgCheck {
  const policy = checkSvgPolicy(svg);
  if (!policy.ok) {
    return policy;
  }
  const options = resvgOptions(fontDirectory);
  let resvg: Resvg;
  try {
    resvg = new Resvg(svg, options);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return rejection(
      'unreadable',
      `SVG could not be parsed by the renderer (${reason}); send a simpler, standard SVG document`
    );
  }
  const { width, height } = resvg;
  if (!(width > 0 && height > 0) || width > SVG_MAX_SIDE || height > SVG_MAX_SIDE) {
    return rejection(
      'dimensions',
      `SVG has an unusable size (${width}×${height} px); give the root width and height between 1 and ${SVG_MAX_SIDE} px`
    );
  }
  if (width * height > SVG_MAX_AREA) {
    return rejection(
      'dimensions',
      `SVG is ${width}×${height} px; keep the area ≤ ${SVG_MAX_AREA / 1e6} M px (scale width/height down and keep the viewBox)`
    );
  }
  if (resvg.getBBox() === undefined) {
    return rejection(
      'empty',
      'SVG draws nothing visible; add shapes, paths or text with a fill or stroke inside the figure'
    );
  }
  return policy;
}
