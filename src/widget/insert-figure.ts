/**
 * Inserting a figure or view of a notebook's conversation into the notebook (the work behind the
 * `figure-chat:insert-figure` command). Why a Markdown cell with attachments is explained in
 * `src/tools/pin.ts`.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { NotebookPanel } from '@jupyterlab/notebook';

import { figureBundle, pinnedCell, visionBundle, type PinnedOutput } from '../tools/pin';
import { findPinTarget, type PinTarget } from '../tools/pin-source';
import { checkSvgPolicy, svgDataUri } from '../tools/svg';
import { isReadable, loadTranscript, METADATA_KEY } from '../tools/transcript';
import { describeMark } from '../tools/vision';
import { drawStoredView } from './stored-view';

/** The largest side of a figure's PNG fallback, in pixels. */
const MAX_PNG_SIDE = 2048;

/** A figure or view that could not be inserted, with the reason a person can act on. */
export class InsertFigureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InsertFigureError';
  }
}

/**
 * The figure as a PNG, drawn by the browser from the same data URI the chat shows (no scripts, no
 * external loads). It is painted over white: PNG-only readers (GitHub's dark theme among them)
 * would otherwise show a transparent figure's dark text on a dark page.
 */
async function figurePng(svg: string): Promise<string> {
  const img = new Image();
  img.src = svgDataUri(svg);
  await img.decode();
  const width = img.naturalWidth || 300;
  const height = img.naturalHeight || 150;
  const scale = Math.min(1, MAX_PNG_SIDE / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const context = canvas.getContext('2d');
  if (!context) {
    throw new InsertFigureError('This browser cannot draw the figure to a PNG (no 2D canvas).');
  }
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(img, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL('image/png').replace(/^data:image\/png;base64,/, '');
}

/** The MIME bundle for a target: figures are re-checked, views rendered again. */
async function pinnedOutput(target: PinTarget, panel: NotebookPanel): Promise<PinnedOutput> {
  if (target.kind === 'figure') {
    const check = checkSvgPolicy(target.svg);
    if (!check.ok) {
      throw new InsertFigureError(`The stored figure is refused: ${check.error.message}`);
    }
    return {
      bundle: figureBundle(target.alt, target.source),
      png: await figurePng(target.svg),
      text: target.alt,
      svg: target.svg
    };
  }
  const view = await drawStoredView(panel, target);
  if (!view) {
    throw new InsertFigureError('The figure server drew no view.');
  }
  const marks = target.record.marks.map(describeMark);
  return {
    bundle: visionBundle(target.picture, target.record, target.spec, target.source),
    png: view.png,
    text: [view.caption, ...marks].join('\n')
  };
}

/** Insert a figure or view of `panel`'s conversation below its active cell. */
export async function insertFigure(
  panel: NotebookPanel,
  request: { call?: string; view?: number }
): Promise<void> {
  const model = panel.model;
  if (!model) {
    throw new InsertFigureError('The notebook is not loaded yet.');
  }
  const transcript = loadTranscript(model.getMetadata(METADATA_KEY));
  const found = findPinTarget(transcript.entries.filter(isReadable), request);
  if (!found.ok) {
    throw new InsertFigureError(found.error);
  }
  const output = await pinnedOutput(found.value, panel);
  const unique = found.value.kind === 'vision' ? `view${found.value.index}` : '';
  const cell = pinnedCell(output, unique);
  const index = Math.min(panel.content.activeCellIndex + 1, model.cells.length);
  const { message, call } = cell.metadata.figure_chat.source;
  // A JSON round trip: the shared model takes plain JSON, and the bundle is plain JSON already.
  const attachments = JSON.parse(JSON.stringify(cell.attachments)) as nbformat.IAttachments;
  model.sharedModel.insertCell(index, {
    cell_type: 'markdown',
    source: cell.source,
    metadata: { figure_chat: { source: { message, call } } },
    attachments
  });
  panel.content.activeCellIndex = index;
}
