/**
 * Pinned figure cells ("Insert into notebook") render through the Figure Chat MIME renderer: each
 * time such a Markdown cell renders, its attachment image is replaced by the renderer's output for
 * the bundle the cell carries (an SVG checked again, a view rendered again, or the stored PNG with
 * a notice). The cell itself is unchanged, so without the extension its stored PNG still shows.
 *
 * Nothing from the notebook runs: the bundle goes through the same renderer as an untrusted output
 * (`trusted: false`, and the renderer treats every field as hostile).
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import type { Cell, MarkdownCell } from '@jupyterlab/cells';
import { INotebookTracker, type NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry, type IRenderMime } from '@jupyterlab/rendermime';

// Small modules needed as soon as a notebook opens (its pinned cells render with it).
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { FIGURE_MIME } from '../tools/bundle';
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { PIN_METADATA_KEY, pinnedOutputData } from '../tools/pin';

/** The class of the element that takes the attachment image's place. */
export const PINNED_CLASS = 'jp-FigureChat-pinned';

/** Whether a cell's metadata says "Insert into notebook" made it. */
function isPinned(cell: Cell): boolean {
  const meta = cell.model.getMetadata(PIN_METADATA_KEY) as unknown;
  return !!meta && typeof meta === 'object' && 'source' in meta;
}

/** One pinned cell's renderer, kept across the cell's Markdown renders. */
class PinnedCellView {
  private readonly _host = document.createElement('div');
  private _renderer: IRenderMime.IRenderer | null = null;
  private _data = '';
  private readonly _observer: MutationObserver;

  constructor(
    private readonly _cell: MarkdownCell,
    private readonly _rendermime: IRenderMimeRegistry
  ) {
    this._host.className = PINNED_CLASS;
    // The Markdown renderer replaces its children on every render: put the figure back each time.
    this._observer = new MutationObserver(() => this.update());
    this._observer.observe(_cell.renderer.node, { childList: true });
    _cell.disposed.connect(() => this.dispose());
    this.update();
  }

  /** Render the bundle again if it changed, and put it where the attachment image is. */
  update(): void {
    const pinned = isPinned(this._cell)
      ? pinnedOutputData(this._cell.model.attachments?.toJSON())
      : null;
    const node = this._cell.renderer.node;
    const image = node.querySelector(`img:not(.${PINNED_CLASS} img)`);
    if (!pinned || !image) {
      return;
    }
    const json = JSON.stringify(pinned.data);
    if (json !== this._data || !this._renderer) {
      this._data = json;
      this._renderer ??= this._rendermime.createRenderer(FIGURE_MIME);
      this._host.replaceChildren(this._renderer.node);
      const model = this._rendermime.createModel({
        data: pinned.data as IRenderMime.IMimeModel['data'],
        trusted: false
      });
      void this._renderer.renderModel(model);
    }
    image.replaceWith(this._host);
  }

  dispose(): void {
    this._observer.disconnect();
    this._renderer?.dispose();
    this._renderer = null;
  }
}

/**
 * A rendered Markdown cell. Duck-typed: `@jupyterlab/cells` is not a shared module of this
 * labextension, so `instanceof MarkdownCell` would test against a second copy of the class.
 */
function isMarkdownCell(cell: Cell): cell is MarkdownCell {
  return cell.model.type === 'markdown' && 'renderer' in cell;
}

/** Watch a notebook's Markdown cells, adding a view to each pinned one (once). */
function watchNotebook(panel: NotebookPanel, rendermime: IRenderMimeRegistry): void {
  const seen = new WeakSet<Cell>();
  const scan = (): void => {
    for (const cell of panel.content.widgets) {
      if (isMarkdownCell(cell) && !seen.has(cell) && isPinned(cell)) {
        seen.add(cell);
        new PinnedCellView(cell, rendermime);
      }
    }
  };
  // Cells are added, pasted and inserted as the content changes, and drawn as they scroll in.
  panel.content.modelContentChanged.connect(scan);
  panel.content.cellInViewportChanged.connect(scan);
  void panel.revealed.then(scan);
}

/** Pinned figure cells render through the MIME renderer. */
export const pinnedCellsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:pinned-cells',
  description: 'Renders figures pinned by "Insert into notebook" through the Figure Chat renderer.',
  autoStart: true,
  requires: [INotebookTracker, IRenderMimeRegistry],
  activate: (_app: JupyterFrontEnd, tracker: INotebookTracker, rendermime: IRenderMimeRegistry) => {
    tracker.widgetAdded.connect((_, panel) => watchNotebook(panel, rendermime));
  }
};
