/**
 * The Vision editor's keys, as one table so the toolbar's help text and the handler agree:
 * - arrows move the selected mark 1 pixel (10 with Ctrl/Cmd);
 * - Shift+arrows resize the selected box by its right and bottom edges (10 with Ctrl/Cmd too);
 * - Delete/Backspace remove it, Escape deselects, Enter edits its caption;
 * - Ctrl/Cmd+Z undoes, Shift+Ctrl/Cmd+Z (or Ctrl+Y) redoes;
 * - 1–9 choose the class of new marks and relabel the selected one.
 * The editor takes these keys before JupyterLab's shortcuts see them (vision-editor.ts), so the
 * notebook's own bindings for the same keys (cell up/down, undo a cell action, 1–6 headings)
 * never fire while the picture has focus; every other key (Shift+Enter, Ctrl+S) still reaches
 * JupyterLab.
 */

import type { Mark, PictureSize, UpdateOp } from '../tools/vision';
import { movedAddress } from './mark-shapes';
import { resizedAddress } from './vision-editor-resize';

export type KeyAction =
  | { readonly kind: 'move'; readonly dx: number; readonly dy: number }
  | { readonly kind: 'resize'; readonly handle: 'e' | 's'; readonly by: number }
  | { readonly kind: 'remove' }
  | { readonly kind: 'deselect' }
  | { readonly kind: 'caption' }
  | { readonly kind: 'undo' }
  | { readonly kind: 'redo' }
  | { readonly kind: 'class'; readonly index: number };

const ARROWS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1]
};

/** What a key press asks of the editor, or null for a key it leaves alone. */
export function keyAction(event: KeyboardEvent): KeyAction | null {
  const command = event.ctrlKey || event.metaKey;
  const key = event.key;
  if (command && !event.altKey && (key === 'z' || key === 'Z')) {
    return event.shiftKey ? { kind: 'redo' } : { kind: 'undo' };
  }
  if (command && !event.altKey && (key === 'y' || key === 'Y') && !event.shiftKey) {
    return { kind: 'redo' };
  }
  if (event.altKey) {
    return null;
  }
  const arrow = ARROWS[key];
  if (arrow) {
    const step = command ? 10 : 1;
    const [dx, dy] = arrow;
    if (event.shiftKey) {
      return dx !== 0
        ? { kind: 'resize', handle: 'e', by: dx * step }
        : { kind: 'resize', handle: 's', by: dy * step };
    }
    return { kind: 'move', dx: dx * step, dy: dy * step };
  }
  if (command) {
    return null;
  }
  if (key === 'Delete' || key === 'Backspace') {
    return { kind: 'remove' };
  }
  if (key === 'Escape') {
    return { kind: 'deselect' };
  }
  if (key === 'Enter' && !event.shiftKey) {
    return { kind: 'caption' };
  }
  if (/^[1-9]$/.test(key) && !event.shiftKey) {
    return { kind: 'class', index: Number(key) - 1 };
  }
  return null;
}

/** What the keys act on (the editor). */
export interface KeyTarget {
  selected(): Mark | undefined;
  readonly size: PictureSize;
  /** The polygon being drawn, which has its own Enter, Escape and Backspace. */
  readonly polygon: {
    readonly drawingPolygon: boolean;
    closePolygon(): void;
    cancelPolygon(): void;
    dropVertex(): void;
  };
  /** A picture set's ← → and Enter (with no mark selected); false when not a set. */
  setKey(action: 'prev' | 'next' | 'submit'): boolean;
  undoRedo(which: 'undo' | 'redo'): void;
  deselect(): void;
  classCount(): number;
  pickClass(index: number): void;
  removeSelected(): void;
  editCaption(): void;
  update(op: UpdateOp): void;
}

/** Do what a key asks; false when it does not apply (then the key goes on to JupyterLab). */
export function runKey(action: KeyAction, target: KeyTarget): boolean {
  const selected = target.selected();
  const { width, height } = target.size;
  if (target.polygon.drawingPolygon) {
    // The polygon's own keys: Enter closes it, Escape drops it, Backspace takes a vertex back.
    const polygonKeys: Partial<Record<KeyAction['kind'], () => void>> = {
      caption: () => target.polygon.closePolygon(),
      deselect: () => target.polygon.cancelPolygon(),
      remove: () => target.polygon.dropVertex()
    };
    const run = polygonKeys[action.kind];
    if (run) {
      run();
      return true;
    }
  }
  if (!selected) {
    const setAction =
      action.kind === 'caption'
        ? 'submit'
        : action.kind === 'move' && action.dy === 0
          ? action.dx < 0
            ? 'prev'
            : 'next'
          : null;
    if (setAction && target.setKey(setAction)) {
      return true;
    }
  }
  switch (action.kind) {
    case 'undo':
    case 'redo':
      target.undoRedo(action.kind);
      return true;
    case 'deselect':
      target.deselect();
      return true;
    case 'class':
      if (action.index >= target.classCount()) {
        return false;
      }
      target.pickClass(action.index);
      return true;
  }
  if (!selected) {
    return false;
  }
  switch (action.kind) {
    case 'remove':
      target.removeSelected();
      return true;
    case 'caption':
      target.editCaption();
      return true;
    case 'move':
      target.update({
        mark: selected.id,
        at: movedAddress(selected, action.dx, action.dy, width, height)
      });
      return true;
    case 'resize':
      if (selected.kind !== 'box') {
        return false;
      }
      target.update({
        mark: selected.id,
        at: resizedAddress(
          selected,
          action.handle,
          action.handle === 'e' ? action.by : 0,
          action.handle === 's' ? action.by : 0,
          width,
          height
        )
      });
      return true;
  }
}
