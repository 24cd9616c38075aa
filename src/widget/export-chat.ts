/**
 * The chat's Export: the conversation as Markdown next to the notebook, with every figure as an
 * `.svg` file and every vision view as a `.png` file in a folder beside it, written through the
 * Jupyter contents API, so JupyterLab's Markdown preview (and any other) shows the pictures.
 * Names, links and failures come from the same `drawExportAssets` the `figure-chat export --assets`
 * command uses; only the drawing differs: figures are re-checked here, views are rendered by the
 * figure server.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Contents } from '@jupyterlab/services';

import { FigureClient } from '../chat/figure-client';
import { requestFigureServer } from '../chat/figure-server';
import { drawExportAssets, exportMarkdown, exportStem } from '../tools/export';
import { checkSvgPolicy } from '../tools/svg';
import { isReadable, type StoredMessage, type UnreadableEntry } from '../tools/transcript';
import { drawStoredView } from './stored-view';

/** Where an export of a notebook's chat goes: `<notebook>.chat.md` and `<notebook>.chat-assets/`. */
export function exportPaths(notebookPath: string): {
  markdown: string;
  folder: string;
  folderName: string;
} {
  const slash = notebookPath.lastIndexOf('/');
  const directory = slash >= 0 ? notebookPath.slice(0, slash + 1) : '';
  const base = notebookPath.slice(slash + 1).replace(/\.ipynb$/i, '');
  const folderName = `${exportStem(notebookPath)}.chat-assets`;
  return {
    markdown: `${directory}${base}.chat.md`,
    folder: `${directory}${folderName}`,
    folderName
  };
}

/** What an export wrote. */
export interface ChatExport {
  readonly markdown: string;
  readonly folder: string;
  /** Pictures written into the folder. */
  readonly pictures: number;
  /** Figures and views that could not be drawn, each naming why; the Markdown keeps their text. */
  readonly failures: readonly string[];
}

/** A file as the contents API takes it. */
interface ContentsFile {
  readonly format: 'text' | 'base64';
  readonly content: string;
}

async function exists(contents: Contents.IManager, path: string): Promise<boolean> {
  try {
    await contents.get(path, { content: false });
    return true;
  } catch {
    return false;
  }
}

/**
 * Export `entries` (the conversation of `panel`'s notebook). When the Markdown exists already,
 * `confirmReplace` is asked first, so nothing is replaced silently; `null` when it says no.
 */
export async function exportChat(
  panel: NotebookPanel,
  entries: ReadonlyArray<StoredMessage | UnreadableEntry>,
  contents: Contents.IManager,
  confirmReplace: (path: string) => Promise<boolean>
): Promise<ChatExport | null> {
  const paths = exportPaths(panel.context.path);
  if ((await exists(contents, paths.markdown)) && !(await confirmReplace(paths.markdown))) {
    return null;
  }
  const client = new FigureClient(requestFigureServer);
  const drawn = await drawExportAssets<ContentsFile>(
    entries.filter(isReadable),
    exportStem(panel.context.path),
    {
      figure: async target => {
        const check = checkSvgPolicy(target.svg);
        if (!check.ok) {
          throw new Error(`the stored figure is refused: ${check.error.message}`);
        }
        return { format: 'text', content: target.svg };
      },
      view: async target => {
        const view = await drawStoredView(panel, target, client);
        if (!view) {
          throw new Error('the figure server drew no view');
        }
        return { data: { format: 'base64', content: view.png }, caption: view.caption };
      }
    }
  );
  if (drawn.files.length) {
    await contents.save(paths.folder, { type: 'directory' });
    for (const file of drawn.files) {
      await contents.save(`${paths.folder}/${file.name}`, { type: 'file', ...file.data });
    }
  }
  await contents.save(paths.markdown, {
    type: 'file',
    format: 'text',
    content: exportMarkdown({ entries }, drawn.links(paths.folderName))
  });
  return {
    markdown: paths.markdown,
    folder: paths.folder,
    pictures: drawn.files.length,
    failures: drawn.failures
  };
}
