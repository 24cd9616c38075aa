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
import { FigureClient, type FigureServerRequest } from '../../tools/figure-client';
import { isRecord } from '../../tools/guards';
import type {
  LiveVisionWidget,
  LiveVisionWidgets,
  NotebookCellJson,
  SharedVisionRecord
} from '../../tools/host';
import type { PictureFingerprint } from '../../tools/transcript';

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

/** Whether the bundle holds a set picture's fingerprint (the kernel has read it). */
function isRead(member: BundleSetPicture): boolean {
  return Boolean(member.sha256 && member.width && member.height);
}

/**
 * A set's picture the set's output does not show: its record from the bundle, written through
 * the set's widget with the picture's address. Null until the kernel has read the picture (its
 * fingerprint is in the bundle a moment after the set is shown; {@link readUnreadSetPicture} asks
 * for it sooner).
 */
function setMember(
  candidate: Candidate,
  live: LiveVisionWidgets | null
): SharedVisionRecord | null {
  const member = candidate.member;
  if (!member?.sha256 || !member.width || !member.height) {
    // Not read yet: readUnreadSetPicture asks the kernel for it.
    return null;
  }
  const picture = {
    address: member.address,
    sha256: member.sha256,
    width: member.width,
    height: member.height
  };
  const widget = candidate.modelId ? live?.widget(candidate.modelId) : undefined;
  return memberRecord(candidate, member, picture, widget);
}

/** A set picture's shared record, once its fingerprint is known. */
function memberRecord(
  candidate: Candidate,
  member: BundleSetPicture,
  picture: PictureFingerprint,
  widget: LiveVisionWidget | undefined
): SharedVisionRecord {
  const { classes } = candidate.bundle.record;
  const stored: unknown = member.record ?? {
    image: member.address,
    ...(classes ? { classes } : {}),
    marks: [],
    lastId: 0
  };
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

/**
 * The shared record of a set picture the kernel has not read yet, read now: the set's widget asks
 * its kernel for the picture (the kernel reads it then), and the figure server checks the bytes
 * it sends against the kernel's sha-256 and gives their size. Null when `address` is no such
 * picture (another holder, or one already read, is {@link findSharedVision}'s). Rejects with
 * what to do when it cannot be read: the picture's address is the set's name for it, not a file
 * the figure server could read instead (an array's `picture-0001.png` is no file at all).
 */
export async function readUnreadSetPicture(
  cells: ReadonlyArray<NotebookCellJson> | null,
  address: string,
  live: LiveVisionWidgets | null,
  request: FigureServerRequest,
  signal: AbortSignal
): Promise<SharedVisionRecord | null> {
  const found = cells ? candidates(cells, address) : [];
  if (found.some(candidate => !candidate.member || isRead(candidate.member))) {
    return null;
  }
  const candidate = found.find(candidate => candidate.modelId) ?? found[0];
  const member = candidate?.member;
  if (!member) {
    return null;
  }
  const which = `${address} is a picture of the VisionSet in ${candidate.cellAddress} that its kernel had not read yet`;
  const widget = candidate.modelId ? live?.widget(candidate.modelId) : undefined;
  if (!widget) {
    throw new UnreadSetPictureError(
      `${which}, and no running kernel holds that set (its kernel stopped or restarted), so it cannot be marked. Run the set's cell again: once the set is shown its kernel reads every picture, and then the vision tools can mark any of them.`
    );
  }
  let read: { data: string; sha256: string };
  try {
    read = await widget.pictureRead(signal, member.address);
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new UnreadSetPictureError(
      `${which}; asked for it now, the kernel could not give it (${reason.replace(/[.\s]+$/, '')}). Show it in the set (Next, or s.index = its number) to see what is wrong, then try again.`
    );
  }
  const info = await new FigureClient(request).call(
    'picture-info',
    { address: member.address, data: read.data, expectSha256: read.sha256 },
    signal
  );
  return memberRecord(
    candidate,
    member,
    { address: member.address, sha256: info.sha256, width: info.width, height: info.height },
    widget
  );
}

/** A set picture the chat cannot have yet; the message says what to do. */
export class UnreadSetPictureError extends Error {
  override name = 'UnreadSetPictureError';
}
