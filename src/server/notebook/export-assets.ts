/**
 * `figure-chat export NOTEBOOK [--assets DIR [--root DIR] [--force]]`: the conversation as
 * Markdown. Without `--assets` the Markdown goes to standard output and stands alone (figures as
 * fenced SVG). With `--assets DIR`, `DIR/<notebook>.chat.md` is written with every figure as an
 * `.svg` file and every vision view as a `.png` file beside it, referenced as images, so any
 * Markdown preview shows them. Existing files are never replaced unless `--force` is given.
 */
import { constants } from 'node:fs';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import {
  drawExportAssets,
  exportMarkdown,
  exportStem,
  type ExportAssets
} from '../../tools/export';
import { isReadable, loadTranscript, METADATA_KEY } from '../../tools/transcript';
import { notebookPictures, type NotebookJson } from './notebook-pictures';
import { renderView } from '../render/render';
import { checkSvg } from '../svg/svg';

/** What the command needs from its process, so tests can run it in memory. */
export interface ExportIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const USAGE =
  'usage: figure-chat export NOTEBOOK [--assets DIR [--root DIR] [--force]]\n' +
  '  without --assets: the Markdown on standard output, figures as fenced SVG\n' +
  '  --assets DIR: DIR/<notebook>.chat.md with each figure (.svg) and view (.png) beside it\n';

interface Options {
  notebook: string;
  assets?: string;
  root: string;
  force: boolean;
}

function parseArgs(argv: string[]): Options | string {
  let notebook: string | undefined;
  let assets: string | undefined;
  let root = '.';
  let force = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--assets' || arg === '--root') {
      const value = argv[++i];
      if (!value) {
        return `${arg} needs a DIR`;
      }
      if (arg === '--assets') {
        assets = value;
      } else {
        root = value;
      }
    } else if (arg === '--force') {
      force = true;
    } else if (arg.startsWith('-') || notebook !== undefined) {
      return `unexpected argument ${arg}`;
    } else {
      notebook = arg;
    }
  }
  return notebook ? { notebook, assets, root, force } : 'give one NOTEBOOK';
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/** A file to write beside the Markdown. */
interface Asset {
  readonly name: string;
  readonly bytes: Buffer | string;
}

/** Write the Markdown and its pictures; resolves to the exit code. */
async function exportWithAssets(
  notebook: NotebookJson,
  options: Options & { assets: string },
  io: ExportIo
): Promise<number> {
  const transcript = loadTranscript(notebook.metadata?.[METADATA_KEY]);
  const stem = exportStem(options.notebook);
  const pictureOf = notebookPictures(notebook, options.root);
  const drawn = await drawExportAssets<Buffer | string>(
    transcript.entries.filter(isReadable),
    stem,
    {
      figure: async target => {
        const check = await checkSvg(target.svg);
        if (!check.ok) {
          throw new Error(check.error.message);
        }
        return target.svg;
      },
      view: async target => {
        const { address, sha256 } = target.picture;
        const rendered = await renderView(
          await pictureOf(address, sha256),
          target.spec,
          target.record
        );
        return { data: rendered.bytes, caption: rendered.caption };
      }
    }
  );
  const files: Asset[] = drawn.files.map(file => ({ name: file.name, bytes: file.data }));
  const failures = drawn.failures;
  const assets: ExportAssets = drawn.links('');
  const markdownName = `${stem}.chat.md`;
  files.push({ name: markdownName, bytes: exportMarkdown(transcript, assets) });
  await mkdir(options.assets, { recursive: true });
  if (!options.force) {
    for (const file of files) {
      const path = join(options.assets, file.name);
      if (await exists(path)) {
        io.stderr(
          `figure-chat export: ${path} already exists; remove it, choose another --assets DIR, or pass --force to replace it.\n`
        );
        return 1;
      }
    }
  }
  for (const file of files) {
    // 'wx' refuses a file that appeared since the check, so nothing is replaced silently.
    await writeFile(join(options.assets, file.name), file.bytes, {
      flag: options.force ? 'w' : 'wx'
    });
  }
  for (const failure of failures) {
    io.stderr(`figure-chat export: could not draw the ${failure}\n`);
  }
  io.stdout(`${join(options.assets, markdownName)}\n`);
  return failures.length ? 1 : 0;
}

/** Run `figure-chat export`; resolves to the exit code. */
export async function exportCommand(argv: string[], io: ExportIo): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout(USAGE);
    return 0;
  }
  const options = parseArgs(argv);
  if (typeof options === 'string') {
    io.stderr(`figure-chat export: ${options}\n${USAGE}`);
    return 2;
  }
  let notebook: NotebookJson;
  try {
    notebook = JSON.parse(await readFile(options.notebook, 'utf8')) as NotebookJson;
  } catch (error) {
    io.stderr(
      `figure-chat export: cannot read ${options.notebook}: ${error instanceof Error ? error.message : error}\n`
    );
    return 2;
  }
  if (options.assets === undefined) {
    io.stdout(exportMarkdown(loadTranscript(notebook.metadata?.[METADATA_KEY])));
    return 0;
  }
  return exportWithAssets(notebook, { ...options, assets: options.assets }, io);
}
