/**
 * `check-svg` on the figure server: the pure policy first, then a resvg parse of what passed, as
 * a function, a JSON route and the `figure-chat check-svg` command.
 */
import { Resvg } from '@resvg/resvg-js';
import { z } from 'zod';

import {
  checkSvgPolicy,
  SVG_MAX_AREA,
  SVG_MAX_SIDE,
  type SvgCheck,
  type SvgRejection
} from '../tools/svg';
import { HttpError, type JsonRoute } from './http';
import { resvgOptions } from './svg-fonts';

function rejection(kind: SvgRejection['kind'], message: string): SvgCheck {
  return { ok: false, error: { kind, message } };
}

/**
 * Check a model-authored figure: `checkSvgPolicy`, then (only if it passed) a resvg parse that
 * must give a non-empty tree and a sane intrinsic size. resvg reads local files for non-data
 * hrefs and has no memory limit, which is why nothing reaches it before the policy; it is asked
 * only to parse and measure, never to render. Never throws for any input.
 *
 * @throws FontsUnavailableError when the installation's fonts are missing.
 */
export function checkSvg(svg: string): SvgCheck {
  const policy = checkSvgPolicy(svg);
  if (!policy.ok) {
    return policy;
  }
  const options = resvgOptions();
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
  const result = checkSvg(request.data.svg);
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
  const result = checkSvg(source);
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
