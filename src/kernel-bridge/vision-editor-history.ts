/**
 * The Vision editor's own undo and redo: the records before and after each of the person's edits
 * (not JupyterLab's notebook undo, which knows nothing of marks). Mark numbers are never handed
 * out twice, even across an undo: a restored record keeps the highest `lastId` seen, so a mark
 * drawn after undoing one gets a new number, as the tools promise (SPEC 8).
 */
import type { VisionRecord } from '../tools/vision';

/** Most edits kept to undo; older ones are forgotten. */
export const HISTORY_LIMIT = 200;

/** A record with `lastId` raised to at least `lastId`. */
function keepNumbers(record: VisionRecord, lastId: number): VisionRecord {
  return record.lastId >= lastId ? record : { ...record, lastId };
}

export class EditHistory {
  private _undo: VisionRecord[] = [];
  private _redo: VisionRecord[] = [];

  get canUndo(): boolean {
    return this._undo.length > 0;
  }

  get canRedo(): boolean {
    return this._redo.length > 0;
  }

  /** The person made an edit from `before`: it can be undone, and nothing is left to redo. */
  edited(before: VisionRecord): void {
    this._undo.push(before);
    if (this._undo.length > HISTORY_LIMIT) {
      this._undo.shift();
    }
    this._redo = [];
  }

  /** The record to show for an undo of `current`, or null when there is nothing to undo. */
  undo(current: VisionRecord): VisionRecord | null {
    const previous = this._undo.pop();
    if (!previous) {
      return null;
    }
    this._redo.push(current);
    return keepNumbers(previous, current.lastId);
  }

  /** The record to show for a redo from `current`, or null when there is nothing to redo. */
  redo(current: VisionRecord): VisionRecord | null {
    const next = this._redo.pop();
    if (!next) {
      return null;
    }
    this._undo.push(current);
    return keepNumbers(next, current.lastId);
  }

  /** Someone else changed the record (the kernel, the chat): older steps no longer apply. */
  clear(): void {
    this._undo = [];
    this._redo = [];
  }
}
