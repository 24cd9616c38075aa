/**
 * One record per picture: the Vision outputs of a notebook (made by kernel code) hold their
 * picture's marks, and the chat's vision tools work on that record instead of one of their own.
 * A running widget's record is read from and written to its model (the kernel bridge provides
 * the models, behind {@link LiveVisionWidgets}); once the kernel is gone, the record saved in the
 * output's bundle is what the tools start from.
 */
import { FIGURE_MIME, parseOutputBundle, type VisionBundle } from '../../tools/bundle';
import { isRecord } from '../../tools/guards';
import type { LiveVisionWidgets, NotebookCellJson, SharedVisionRecord } from '../../tools/host';

/** The output entry naming a live Vision widget model (written by the Python `Vision`). */
export const LIVE_WIDGET_MIME = 'application/vnd.figure-chat.widget+json';

interface Candidate {
  readonly cellAddress: string;
  readonly bundle: VisionBundle;
  readonly modelId: string;
}

function outputsOf(cell: NotebookCellJson): ReadonlyArray<Record<string, unknown>> {
  return Array.isArray(cell.outputs) ? (cell.outputs as Array<Record<string, unknown>>) : [];
}

function modelIdOf(data: Record<string, unknown>): string {
  const entry = data[LIVE_WIDGET_MIME];
  if (!isRecord(entry)) {
    return '';
  }
  const id = entry.model_id;
  return typeof id === 'string' ? id : '';
}

/** The Vision outputs of the notebook that hold `address`, by picture or output address. */
function candidates(cells: ReadonlyArray<NotebookCellJson>, address: string): Candidate[] {
  const found: Candidate[] = [];
  for (const cell of cells) {
    const id = typeof cell.id === 'string' ? cell.id : '';
    outputsOf(cell).forEach((output, index) => {
      const data = output.data;
      if (!isRecord(data)) {
        return;
      }
      if (!(FIGURE_MIME in data)) {
        return;
      }
      const parsed = parseOutputBundle(data[FIGURE_MIME]);
      if (!parsed.ok || parsed.value.kind !== 'vision') {
        return;
      }
      const cellAddress = `cell:${id}/${index}`;
      if (cellAddress === address || parsed.value.picture.address === address) {
        found.push({ cellAddress, bundle: parsed.value, modelId: modelIdOf(data) });
      }
    });
  }
  return found;
}

/** The record a bundle stores, with the `lastId` it may leave out (its marks' highest id). */
function bundleRecord(bundle: VisionBundle): Record<string, unknown> {
  const lastId = Math.max(0, ...bundle.record.marks.map(mark => mark.id));
  const stored = bundle.record.lastId;
  return {
    image: bundle.record.image,
    marks: bundle.record.marks,
    lastId: typeof stored === 'number' && stored >= lastId ? stored : lastId
  };
}

/**
 * The shared record of `address`, or null when no Vision output holds it. When several outputs
 * show the same picture (the widget, and `v.show()` views of it), a live widget wins, then the
 * output the address names, then the widget's saved output, then the last one.
 */
export function findSharedVision(
  cells: ReadonlyArray<NotebookCellJson> | null,
  address: string,
  live: LiveVisionWidgets | null
): SharedVisionRecord | null {
  const found = cells ? candidates(cells, address) : [];
  if (!found.length) {
    return null;
  }
  for (const candidate of found) {
    const widget = candidate.modelId ? live?.widget(candidate.modelId) : undefined;
    if (widget) {
      // The record the call read and planned from: the kernel takes the write only while it
      // still holds these marks, so a person's edit in between is never overwritten.
      let base = widget.record();
      return {
        picture: candidate.bundle.picture,
        where: 'widget',
        record: () => (base = widget.record()),
        write: (record, signal) => widget.write(record, base, signal),
        pictureData: signal => widget.pictureData(signal)
      };
    }
  }
  const chosen =
    found.find(candidate => candidate.cellAddress === address) ??
    [...found].reverse().find(candidate => candidate.modelId) ??
    found[found.length - 1];
  const record = bundleRecord(chosen.bundle);
  return {
    picture: chosen.bundle.picture,
    where: 'output',
    record: () => record,
    pictureData: () => Promise.resolve(undefined)
  };
}
