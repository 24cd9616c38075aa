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
