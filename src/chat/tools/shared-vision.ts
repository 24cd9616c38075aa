/**
 * One record per picture: the Vision outputs of a notebook (made by kernel code) hold their
 * picture's marks, and the chat's vision tools work on that record instead of one of their own.
 * A running widget's record is read from and written to its model (the kernel bridge provides
 * the models, behind {@link LiveVisionWidgets}); once the kernel is gone, the record saved in the
 * output's bundle is what the tools start from.
 *
 * A `VisionSet`'s output holds every picture of the set (its bundle's `set`): the chat finds any
 * of them by its address, reads its record from the bundle and writes through the set's widget,
 * which the kernel applies to that picture, shown or not.
 */
import {
  FIGURE_MIME,
  parseOutputBundle,
  type BundleSetPicture,
  type VisionBundle
} from '../../tools/bundle';
import { isRecord } from '../../tools/guards';
import type { LiveVisionWidgets, NotebookCellJson, SharedVisionRecord } from '../../tools/host';

/** The output entry naming a live Vision widget model (written by the Python `Vision`). */
export const LIVE_WIDGET_MIME = 'application/vnd.figure-chat.widget+json';

interface Candidate {
  readonly cellAddress: string;
  readonly bundle: VisionBundle;
  readonly modelId: string;
  /** A set's picture other than the one its output shows. */
  readonly member?: BundleSetPicture;
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
      const bundle = parsed.value;
      if (cellAddress === address || bundle.picture.address === address) {
        found.push({ cellAddress, bundle, modelId: modelIdOf(data) });
        return;
      }
      const member = bundle.set?.pictures.find(picture => picture.address === address);
      if (member) {
        found.push({ cellAddress, bundle, modelId: modelIdOf(data), member });
      }
    });
  }
  return found;
}

/** The record a bundle stores, with the `lastId` it may leave out (its marks' highest id). */
function bundleRecord(bundle: VisionBundle): Record<string, unknown> {
  const lastId = Math.max(0, ...bundle.record.marks.map(mark => mark.id));
  const stored = bundle.record.lastId;
  const { classes } = bundle.record;
  return {
    image: bundle.record.image,
    ...(classes ? { classes } : {}),
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
  const shown = found.filter(candidate => !candidate.member);
  if (!shown.length) {
    const member = found.find(candidate => candidate.member);
    return member ? setMember(member, live) : null;
  }
  for (const candidate of shown) {
    const widget = candidate.modelId ? live?.widget(candidate.modelId) : undefined;
    if (widget) {
      // The record the call read and planned from: the kernel takes the write only while it
      // still holds these marks, so a person's edit in between is never overwritten.
      let base = widget.record();
      // A set's widget may have moved on to another picture: naming this one makes the kernel
      // answer for it (or refuse), never for whichever picture it shows now.
      const named = candidate.bundle.set ? candidate.bundle.picture.address : undefined;
      return {
        picture: candidate.bundle.picture,
        where: 'widget',
        record: () => (base = widget.record()),
        write: (record, signal) => widget.write(record, base, signal, named),
        pictureData: signal => widget.pictureData(signal, named)
      };
    }
  }
  const chosen =
    shown.find(candidate => candidate.cellAddress === address) ??
    [...shown].reverse().find(candidate => candidate.modelId) ??
    shown[shown.length - 1];
  const record = bundleRecord(chosen.bundle);
  return {
    picture: chosen.bundle.picture,
    where: 'output',
    record: () => record,
    pictureData: () => Promise.resolve(undefined)
  };
}

/**
 * A set's picture the set's output does not show: its record from the bundle, written through
 * the set's widget with the picture's address. Null until the kernel has read the picture (its
 * fingerprint is in the bundle a moment after the set is shown).
 */
function setMember(
  candidate: Candidate,
  live: LiveVisionWidgets | null
): SharedVisionRecord | null {
  const member = candidate.member;
  if (!member?.sha256 || !member.width || !member.height) {
    return null;
  }
  const picture = {
    address: member.address,
    sha256: member.sha256,
    width: member.width,
    height: member.height
  };
  const { classes } = candidate.bundle.record;
  const stored: unknown = member.record ?? {
    image: member.address,
    ...(classes ? { classes } : {}),
    marks: [],
    lastId: 0
  };
  const widget = candidate.modelId ? live?.widget(candidate.modelId) : undefined;
  if (!widget) {
    return {
      picture,
      where: 'output',
      record: () => stored,
      pictureData: () => Promise.resolve(undefined)
    };
  }
  const base = stored;
  return {
    picture,
    where: 'widget',
    record: () => stored,
    write: (record, signal) => widget.write(record, base, signal, member.address),
    pictureData: signal => widget.pictureData(signal, member.address)
  };
}
