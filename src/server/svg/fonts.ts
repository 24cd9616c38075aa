/**
 * The fonts resvg shapes figure text with: the bundled DejaVu faces, never system fonts, so a
 * figure measures and renders the same on every machine.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

import type { ResvgRenderOptions } from '@resvg/resvg-js';

/** The faces loaded: sans (regular and bold), serif and monospace cover what diagrams ask for. */
const FONT_FILES = [
  'DejaVuSans.ttf',
  'DejaVuSans-Bold.ttf',
  'DejaVuSerif.ttf',
  'DejaVuSansMono.ttf'
];

/** Raised when the bundled fonts cannot be found: a broken installation, not a bad figure. */
export class FontsUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FontsUnavailableError';
  }
}

/**
 * The folder holding the DejaVu TTF files: `FIGURE_CHAT_FONT_DIR` when set, else `fonts/` beside
 * the bundled server (the wheel ships them there), else the `dejavu-fonts-ttf` package's `ttf`
 * folder (a source checkout).
 */
export function fontDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.FIGURE_CHAT_FONT_DIR;
  if (override) {
    return override;
  }
  const beside = join(__dirname, 'fonts');
  if (existsSync(join(beside, 'DejaVuSans.ttf'))) {
    return beside;
  }
  return join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
}

let cached: ResvgRenderOptions | undefined;

/**
 * resvg options for parsing untrusted figures, resolved once per process (or worker): bundled
 * fonts only, no system fonts, no logging, and no `fitTo`, so nothing is ever sized by the
 * figure's say-so.
 *
 * resvg-js 2.6 takes fonts only as file paths (its typings and binary have no `fontBuffers`), and
 * resvg reopens the file for every glyph it outlines; `SVG_MAX_TEXT_CHARACTERS` bounds that cost.
 *
 * @param directory - where the TTF files are; a worker is told by the thread that started it.
 */
export function resvgOptions(directory = fontDirectory()): ResvgRenderOptions {
  if (cached) {
    return cached;
  }
  const fontFiles = FONT_FILES.map(file => join(directory, file));
  const missing = fontFiles.filter(file => !existsSync(file));
  if (missing.length > 0) {
    throw new FontsUnavailableError(
      `Figure server fonts are missing (${missing.join(', ')}); reinstall jupyterlab-figure-chat or set FIGURE_CHAT_FONT_DIR to a folder with the DejaVu TTF files`
    );
  }
  cached = {
    font: {
      loadSystemFonts: false,
      fontFiles,
      defaultFontFamily: 'DejaVu Sans',
      sansSerifFamily: 'DejaVu Sans',
      serifFamily: 'DejaVu Serif',
      monospaceFamily: 'DejaVu Sans Mono',
      cursiveFamily: 'DejaVu Sans',
      fantasyFamily: 'DejaVu Sans'
    },
    logLevel: 'off'
  };
  return cached;
}
