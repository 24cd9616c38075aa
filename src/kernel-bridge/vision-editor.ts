/**
 * The mark editor of the Vision widget: a toolbar (vision-editor-toolbar.ts) over a stage
 * (vision-editor-stage.ts): the downscaled preview as an `<img>` (vision-editor-preview.ts) and
 * the marks as an SVG over it in original-pixel coordinates (`viewBox` = the picture's size), so
 * no drag needs a server round trip and every coordinate the person sees is the one the record
 * stores.
 *
 * Every change goes through the tools' own `applyMarkArgs`/`applyUpdateArgs`, so a mark made by a
 * click is the mark `vision_mark` would have made (numbering, default radius, bounds); a box is
 * resized by its handles (vision-editor-resize.ts), keys are in vision-editor-keys.ts, and undo
 * and redo are the editor's own (vision-editor-history.ts).
 */
import {
  applyMarkArgs,
  applyUpdateArgs,
  VisionError,
  type Colour,
  type MarkArg,
  type UpdateOp,
  type VisionRecord
} from '../tools/vision';
import { sameMarks } from './same-record';
import { EditHistory } from './vision-editor-history';
import { keyAction, runKey, type KeyTarget } from './vision-editor-keys';
import { markIdOf, PointerGestures } from './vision-editor-pointer';
import { VisionStage } from './vision-editor-stage';
import { VisionToolbar, type VisionEditorLabels } from './vision-editor-toolbar';

export type { VisionEditorLabels } from './vision-editor-toolbar';

/** What the editor needs from its host (the widget view). */
export interface VisionEditorOptions {
  readonly width: number;
  readonly height: number;
  /** URL of the downscaled preview, when it has come (else see {@link VisionEditor.setPreview}). */
  readonly previewUrl?: string;
  /** A new record made by the person; the host sends it to the kernel. */
  onChange(record: VisionRecord): void;
  /**
   * A picture set's key with no mark selected (← →: previous, next; Enter: submit); true when
   * the host took it (it shows a set).
   */
  onSetKey?(action: 'prev' | 'next' | 'submit'): boolean;
  /** The class chosen for new marks (index into the record's classes); kept by the host. */
  readonly classIndex?: number;
  /** The person chose another class (so a set's next picture starts with it). */
  onClass?(index: number): void;
  /** Translated UI strings. */
  readonly labels: VisionEditorLabels;
}

/** The editor: a DOM node, a record to show, and the person's edits reported as new records. */
export class VisionEditor {
  readonly node: HTMLDivElement;
  private readonly _svg: SVGSVGElement;
  private readonly _stage: VisionStage;
  private _polygonMode = false;
  private _classIndex: number;
  private readonly _history = new EditHistory();
  /** Why edits are refused (the kernel is out of reach), or null while they are taken. */
  private _gone: string | null = null;
  private readonly _toolbar: VisionToolbar;
  private _record: VisionRecord;
  private _selected: number | null = null;
  private readonly _gestures: PointerGestures;
  private readonly _keyTarget: KeyTarget;

  constructor(private readonly _options: VisionEditorOptions) {
    const { width, height, labels } = _options;
    this._classIndex = _options.classIndex ?? 0;
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
      remove: () => this._removeSelected(),
      polygon: () => this._setPolygonMode(!this._polygonMode),
      pickClass: index => this._pickClass(index),
      undo: () => this._undoRedo('undo'),
      redo: () => this._undoRedo('redo'),
      display: (brightness, contrast) => this._stage.setDisplay(brightness, contrast)
    });

    this._stage = new VisionStage(width, height, labels.picture);
    this._svg = this._stage.svg;
    if (_options.previewUrl) {
      void this._stage.preview.show(_options.previewUrl);
    }
    this.node.append(this._toolbar.node, this._stage.node);

    this._gestures = new PointerGestures({
      svg: this._svg,
      draft: this._stage.draft,
      polygonDraft: this._stage.polygonDraft,
      polygonMode: () => this._polygonMode,
      size: _options,
      record: () => this._record,
      selected: () => this._selected,
      select: id => this._select(id),
      preview: op => {
        const preview = this._tryUpdate(this._record, op);
        if (preview) {
          this._draw(preview);
        }
      },
      redraw: () => this._draw(this._record),
      add: mark => this._add(mark),
      update: op => this._update(op)
    });
    this._keyTarget = {
      selected: () => this._record.marks.find(mark => mark.id === this._selected),
      size: _options,
      polygon: this._gestures,
      setKey: action => this._options.onSetKey?.(action) ?? false,
      undoRedo: which => this._undoRedo(which),
      deselect: () => this._select(null),
      classCount: () => this._record.classes?.length ?? 0,
      pickClass: index => this._pickClass(index),
      removeSelected: () => this._removeSelected(),
      editCaption: () => this._toolbar.caption.focus(),
      update: op => this._update(op)
    };
    this._svg.addEventListener('pointerdown', this);
    this._svg.addEventListener('pointermove', this);
    this._svg.addEventListener('pointerup', this);
    this._svg.addEventListener('pointercancel', this);
    this._svg.addEventListener('focusin', this);
    this._svg.addEventListener('focusout', this);
    this._syncToolbar();
  }

  /**
   * Refuse every edit from now on and say why (the kernel restarted, shut down, or closed the
   * widget): an edit made now would reach no kernel and be lost.
   */
  setGone(text: string): void {
    this._gone = text;
    this._gestures.cancel();
    this.node.classList.add('jp-mod-gone');
    this._toolbar.disable();
    this.setProblem(text);
    window.removeEventListener('keydown', this._onWindowKey, true);
  }

  /**
   * Show a preview once it is decoded: the first, or a sharper one (the kernel sends a quick one
   * first); marks are in picture pixels, so they stay where they are.
   */
  setPreview(url: string): Promise<void> {
    return this._stage.preview.show(url);
  }

  /** The record shown. */
  get record(): VisionRecord {
    return this._record;
  }

  /** Show a record from the kernel: a change made elsewhere ends what undo could restore. */
  setRecord(record: VisionRecord): void {
    if (!sameMarks(record, this._record)) {
      this._history.clear();
    }
    this._show(record);
  }

  private _show(record: VisionRecord): void {
    this._record = record;
    if (this._selected !== null && !record.marks.some(mark => mark.id === this._selected)) {
      this._selected = null;
    }
    this._draw(record);
    this._toolbar.classes.show(record.classes, this._classIndex);
    this._syncToolbar();
  }

  /** Show a problem (an edit the kernel refused), or clear it. */
  setProblem(text: string): void {
    this._toolbar.setProblem(text);
  }

  /** DOM events, one listener object (removed with the node). */
  handleEvent(event: Event): void {
    if (this._gone !== null) {
      return;
    }
    switch (event.type) {
      case 'pointerdown':
        this._gestures.down(event as PointerEvent);
        break;
      case 'pointermove':
        this._gestures.move(event as PointerEvent);
        break;
      case 'pointerup':
        this._gestures.up(event as PointerEvent);
        break;
      case 'pointercancel':
        this._gestures.cancel();
        this._draw(this._record);
        break;
      case 'focusin': {
        // Keys are taken on the window, before JupyterLab's shortcuts (on the document) see them.
        window.addEventListener('keydown', this._onWindowKey, true);
        const id = markIdOf(event.target);
        if (id !== null && id !== this._selected) {
          this._select(id);
        }
        break;
      }
      case 'focusout': {
        const next = (event as FocusEvent).relatedTarget;
        if (!(next instanceof Node && this._svg.contains(next))) {
          window.removeEventListener('keydown', this._onWindowKey, true);
        }
        break;
      }
    }
  }

  /**
   * A key pressed while the picture (or a mark) has focus. JupyterLab matches its shortcuts in the
   * document's capture phase, so the editor listens on the window, earlier, and stops only the
   * keys it uses; the notebook never sees them (no cell moves, no notebook undo).
   */
  private readonly _onWindowKey = (event: KeyboardEvent): void => {
    if (!(event.target instanceof Node) || !this._svg.contains(event.target)) {
      return;
    }
    const action = keyAction(event);
    if (action && runKey(action, this._keyTarget)) {
      event.preventDefault();
      event.stopPropagation();
    }
  };

  /** Choose the class of new marks; the selected mark takes it too. */
  private _pickClass(index: number): void {
    const name = this._record.classes?.[index];
    if (name === undefined) {
      return;
    }
    this._classIndex = index;
    this._options.onClass?.(index);
    this._toolbar.classes.show(this._record.classes, index);
    const selected = this._record.marks.find(mark => mark.id === this._selected);
    if (selected && selected.label !== name) {
      this._update({ mark: selected.id, label: name });
    }
  }

  private _setPolygonMode(on: boolean): void {
    this._polygonMode = on;
    this._gestures.cancelPolygon();
    this._toolbar.showPolygonMode(on);
    this._svg.classList.toggle('jp-mod-polygon', on);
    this._svg.focus();
  }

  private _undoRedo(which: 'undo' | 'redo'): void {
    const record =
      which === 'undo' ? this._history.undo(this._record) : this._history.redo(this._record);
    if (!record) {
      return;
    }
    this.setProblem('');
    this._show(record);
    this._options.onChange(record);
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
      // With a class list, a new mark gets the chosen class (and so its class's colour).
      const label = this._record.classes?.[this._toolbar.classes.current];
      const arg: MarkArg =
        label === undefined
          ? { ...mark, colour: this._toolbar.colour.value as Colour }
          : { ...mark, label };
      const { record, added } = applyMarkArgs(this._record, { marks: [arg] }, this._options);
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
    if (this._gone !== null) {
      return;
    }
    this._history.edited(this._record);
    this.setProblem('');
    this._show(record);
    this._options.onChange(record);
  }

  private _select(id: number | null): void {
    this._selected = id;
    this._draw(this._record);
    this._syncToolbar();
  }

  private _syncToolbar(): void {
    if (this._gone !== null) {
      return;
    }
    this._toolbar.showSelected(this._record.marks.find(mark => mark.id === this._selected));
    this._toolbar.showHistory(this._history.canUndo, this._history.canRedo);
  }

  private _draw(record: VisionRecord): void {
    this._stage.draw(record, this._selected, this._gone === null);
  }
}
