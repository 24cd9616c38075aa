/**
 * The mark editor of the Vision widget: the downscaled preview as an `<img>`
 * (vision-editor-preview.ts), a toolbar (vision-editor-toolbar.ts), and the marks as an SVG over it in original-pixel coordinates (`viewBox` = the picture's size), so no drag needs a
 * server round trip and every coordinate the person sees is the one the record stores.
 *
 * Every change goes through the tools' own `applyMarkArgs`/`applyUpdateArgs`, so a mark made by a
 * click is the mark `vision_mark` would have made (numbering, default radius, bounds).
 */
import {
  applyMarkArgs,
  applyUpdateArgs,
  VisionError,
  type Colour,
  type Mark,
  type MarkArg,
  type UpdateOp,
  type VisionRecord
} from '../tools/vision';
import { clamp, markElements, movedAddress, svgElement } from './mark-shapes';
import { PreviewImage, shownWidth } from './vision-editor-preview';
import { VisionToolbar, type VisionEditorLabels } from './vision-editor-toolbar';

export type { VisionEditorLabels } from './vision-editor-toolbar';

/** Screen pixels a pointer must travel before a press becomes a drag (a box or a move). */
const DRAG_THRESHOLD = 4;

/** What the editor needs from its host (the widget view). */
export interface VisionEditorOptions {
  readonly width: number;
  readonly height: number;
  /** URL of the downscaled preview, when it has come (else see {@link VisionEditor.setPreview}). */
  readonly previewUrl?: string;
  /** A new record made by the person; the host sends it to the kernel. */
  onChange(record: VisionRecord): void;
  /** Translated UI strings. */
  readonly labels: VisionEditorLabels;
}

type Gesture =
  | { kind: 'draw'; x: number; y: number; clientX: number; clientY: number; dragging: boolean }
  | { kind: 'move'; mark: Mark; x: number; y: number; clientX: number; clientY: number };

/** The editor: a DOM node, a record to show, and the person's edits reported as new records. */
export class VisionEditor {
  readonly node: HTMLDivElement;
  private readonly _svg: SVGSVGElement;
  private readonly _marks: SVGGElement;
  private readonly _draft: SVGRectElement;
  private readonly _toolbar: VisionToolbar;
  private readonly _preview: PreviewImage;
  private _record: VisionRecord;
  private _selected: number | null = null;
  private _gesture: Gesture | null = null;

  constructor(private readonly _options: VisionEditorOptions) {
    const { width, height, labels } = _options;
    this._record = { image: '', marks: [], lastId: 0 };
    this.node = document.createElement('div');
    this.node.className = 'jp-FigureChat-visionEditor';

    this._toolbar = new VisionToolbar(labels, {
      addPoint: () => this._addAtCentre('point'),
      addBox: () => this._addAtCentre('box'),
      caption: caption => {
        if (this._selected !== null) {
          this._update({ mark: this._selected, caption });
        }
      },
      colour: colour => {
        if (this._selected !== null) {
          this._update({ mark: this._selected, colour });
        }
      },
      remove: () => this._removeSelected()
    });

    const stage = document.createElement('div');
    stage.className = 'jp-FigureChat-visionStage';
    stage.style.width = `${shownWidth(width, height)}px`;
    this._preview = new PreviewImage(width, height);
    if (_options.previewUrl) {
      void this._preview.show(_options.previewUrl);
    }
    this._svg = svgElement('svg', {
      viewBox: `0 0 ${width} ${height}`,
      preserveAspectRatio: 'none',
      tabindex: 0,
      role: 'application',
      'aria-label': labels.picture
    });
    this._svg.classList.add('jp-FigureChat-visionMarks');
    this._marks = svgElement('g', {});
    this._draft = svgElement('rect', { class: 'jp-FigureChat-visionDraft', visibility: 'hidden' });
    this._svg.append(this._marks, this._draft);
    stage.append(this._preview.node, this._svg);
    this.node.append(this._toolbar.node, stage);

    this._svg.addEventListener('pointerdown', this);
    this._svg.addEventListener('pointermove', this);
    this._svg.addEventListener('pointerup', this);
    this._svg.addEventListener('pointercancel', this);
    this._svg.addEventListener('keydown', this);
    this._svg.addEventListener('focusin', this);
    this._syncToolbar();
  }

  /**
   * Show a preview once it is decoded: the first, or a sharper one (the kernel sends a quick one
   * first); marks are in picture pixels, so they stay where they are.
   */
  setPreview(url: string): Promise<void> {
    return this._preview.show(url);
  }

  /** The record shown. */
  get record(): VisionRecord {
    return this._record;
  }

  /** Show a record (from the kernel, or the person's own edit). */
  setRecord(record: VisionRecord): void {
    this._record = record;
    if (this._selected !== null && !record.marks.some(mark => mark.id === this._selected)) {
      this._selected = null;
    }
    this._draw(record);
    this._syncToolbar();
  }

  /** Show a problem (an edit the kernel refused), or clear it. */
  setProblem(text: string): void {
    this._toolbar.setProblem(text);
  }

  /** DOM events, one listener object (removed with the node). */
  handleEvent(event: Event): void {
    switch (event.type) {
      case 'pointerdown':
        this._onPointerDown(event as PointerEvent);
        break;
      case 'pointermove':
        this._onPointerMove(event as PointerEvent);
        break;
      case 'pointerup':
        this._onPointerUp(event as PointerEvent);
        break;
      case 'pointercancel':
        this._gesture = null;
        this._draft.setAttribute('visibility', 'hidden');
        this._draw(this._record);
        break;
      case 'keydown':
        this._onKeyDown(event as KeyboardEvent);
        break;
      case 'focusin': {
        const id = this._markIdOf(event.target);
        if (id !== null && id !== this._selected) {
          this._select(id);
        }
        break;
      }
    }
  }

  /** Original-pixel coordinates of a pointer event, rounded and kept inside the picture. */
  private _pictureXY(event: { clientX: number; clientY: number }): { x: number; y: number } {
    const box = this._svg.getBoundingClientRect();
    const { width, height } = this._options;
    const x = ((event.clientX - box.left) / Math.max(1, box.width)) * width;
    const y = ((event.clientY - box.top) / Math.max(1, box.height)) * height;
    return { x: clamp(Math.floor(x), 0, width - 1), y: clamp(Math.floor(y), 0, height - 1) };
  }

  private _markIdOf(target: EventTarget | null): number | null {
    const group = target instanceof Element ? target.closest('[data-mark]') : null;
    const id = Number(group?.getAttribute('data-mark'));
    return Number.isInteger(id) && id > 0 ? id : null;
  }

  private _onPointerDown(event: PointerEvent): void {
    if (event.button !== 0) {
      return;
    }
    event.preventDefault();
    this._svg.focus();
    this._svg.setPointerCapture(event.pointerId);
    const { x, y } = this._pictureXY(event);
    const id = this._markIdOf(event.target);
    const mark = this._record.marks.find(candidate => candidate.id === id);
    if (mark) {
      this._select(mark.id);
      this._gesture = { kind: 'move', mark, x, y, clientX: event.clientX, clientY: event.clientY };
    } else {
      this._gesture = {
        kind: 'draw',
        x,
        y,
        clientX: event.clientX,
        clientY: event.clientY,
        dragging: false
      };
    }
  }

  private _onPointerMove(event: PointerEvent): void {
    const gesture = this._gesture;
    if (!gesture) {
      return;
    }
    const { x, y } = this._pictureXY(event);
    const far =
      Math.hypot(event.clientX - gesture.clientX, event.clientY - gesture.clientY) >=
      DRAG_THRESHOLD;
    if (gesture.kind === 'draw') {
      gesture.dragging ||= far;
      if (gesture.dragging) {
        this._draft.setAttribute('x', String(Math.min(x, gesture.x)));
        this._draft.setAttribute('y', String(Math.min(y, gesture.y)));
        this._draft.setAttribute('width', String(Math.abs(x - gesture.x)));
        this._draft.setAttribute('height', String(Math.abs(y - gesture.y)));
        this._draft.setAttribute('visibility', 'visible');
      }
    } else if (far || x !== gesture.x || y !== gesture.y) {
      // Drawn locally while dragging; the kernel hears only the drop.
      const preview = this._tryUpdate(this._record, {
        mark: gesture.mark.id,
        at: this._movedAt(gesture, x, y)
      });
      if (preview) {
        this._draw(preview);
      }
    }
  }

  private _onPointerUp(event: PointerEvent): void {
    const gesture = this._gesture;
    this._gesture = null;
    this._draft.setAttribute('visibility', 'hidden');
    if (!gesture) {
      return;
    }
    const { x, y } = this._pictureXY(event);
    if (gesture.kind === 'move') {
      if (x !== gesture.x || y !== gesture.y) {
        this._update({ mark: gesture.mark.id, at: this._movedAt(gesture, x, y) });
      } else {
        this._draw(this._record);
      }
      return;
    }
    const x0 = Math.min(x, gesture.x);
    const y0 = Math.min(y, gesture.y);
    // Box edges lie between pixels: the box covers the pixels from the press to the release.
    const x1 = Math.max(x, gesture.x) + 1;
    const y1 = Math.max(y, gesture.y) + 1;
    if (gesture.dragging && x1 - x0 > 1 && y1 - y0 > 1) {
      this._add({ at: `${x0},${y0},${x1},${y1}` });
    } else {
      this._add({ at: `${gesture.x},${gesture.y}` });
    }
  }

  private _movedAt(gesture: Gesture & { kind: 'move' }, x: number, y: number): string {
    const { width, height } = this._options;
    return movedAddress(gesture.mark, x - gesture.x, y - gesture.y, width, height);
  }

  private _onKeyDown(event: KeyboardEvent): void {
    const selected = this._record.marks.find(mark => mark.id === this._selected);
    const step = event.shiftKey ? 10 : 1;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step]
    };
    if ((event.key === 'Delete' || event.key === 'Backspace') && selected) {
      event.preventDefault();
      this._removeSelected();
    } else if (event.key in moves && selected) {
      event.preventDefault();
      const [dx, dy] = moves[event.key];
      const { width, height } = this._options;
      this._update({ mark: selected.id, at: movedAddress(selected, dx, dy, width, height) });
    } else if (event.key === 'Escape') {
      this._select(null);
    } else if (event.key === 'Enter' && selected) {
      event.preventDefault();
      this._toolbar.caption.focus();
    }
  }

  private _addAtCentre(kind: 'point' | 'box'): void {
    const { width, height } = this._options;
    const cx = Math.floor(width / 2);
    const cy = Math.floor(height / 2);
    const dx = Math.max(1, Math.floor(width / 8));
    const dy = Math.max(1, Math.floor(height / 8));
    this._add({
      at: kind === 'point' ? `${cx},${cy}` : `${cx - dx},${cy - dy},${cx + dx},${cy + dy}`
    });
    this._svg.focus();
  }

  private _add(mark: Omit<MarkArg, 'colour'>): void {
    try {
      const colour = this._toolbar.colour.value as Colour;
      const { record, added } = applyMarkArgs(
        this._record,
        { marks: [{ ...mark, colour }] },
        this._options
      );
      this._selected = added[0]?.id ?? null;
      this._commit(record);
    } catch (error) {
      this._report(error);
    }
  }

  private _tryUpdate(record: VisionRecord, op: UpdateOp): VisionRecord | null {
    try {
      return applyUpdateArgs(record, { ops: [op] }, this._options).record;
    } catch {
      return null;
    }
  }

  private _update(op: UpdateOp): void {
    try {
      this._commit(applyUpdateArgs(this._record, { ops: [op] }, this._options).record);
    } catch (error) {
      this._report(error);
    }
  }

  private _removeSelected(): void {
    if (this._selected !== null) {
      const id = this._selected;
      this._selected = null;
      this._update({ mark: id, remove: true });
    }
  }

  private _report(error: unknown): void {
    if (!(error instanceof VisionError)) {
      throw error;
    }
    this.setProblem(error.message);
    this._draw(this._record);
  }

  private _commit(record: VisionRecord): void {
    this.setProblem('');
    this.setRecord(record);
    this._options.onChange(record);
  }

  private _select(id: number | null): void {
    this._selected = id;
    this._draw(this._record);
    this._syncToolbar();
  }

  private _syncToolbar(): void {
    this._toolbar.showSelected(this._record.marks.find(mark => mark.id === this._selected));
  }

  /** Draw every mark; label sizes follow the shown size so numbers stay readable when scaled. */
  private _draw(record: VisionRecord): void {
    const active = document.activeElement;
    const markHadFocus =
      active instanceof SVGGElement &&
      active.dataset.mark !== undefined &&
      this.node.contains(active);
    const shown = this._svg.getBoundingClientRect().width || this._options.width;
    const unit = this._options.width / shown;
    const groups = markElements(record, this._selected, unit);
    this._marks.replaceChildren(...groups);
    this._draft.setAttribute('stroke-width', String(2 * unit));
    // Keep keyboard focus on the selected mark after a redraw replaced its element.
    if (markHadFocus && this._selected !== null) {
      this._marks.querySelector<SVGGElement>(`[data-mark="${this._selected}"]`)?.focus();
    }
  }
}
