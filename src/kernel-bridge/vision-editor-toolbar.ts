/**
 * The Vision editor's toolbar: add a point or a box, the selected mark's caption and colour, delete,
 * undo and redo, the picture's display brightness and contrast, and a status line for edits the
 * kernel refused or a kernel that went away. It only builds the controls and shows a mark; what
 * they do is the editor's (vision-editor.ts).
 */
import { PALETTE, type Mark } from '../tools/vision';
import { ClassBar } from './vision-editor-classes';

/** The editor's UI strings, translated by the host. */
export interface VisionEditorLabels {
  readonly addPoint: string;
  readonly addBox: string;
  readonly caption: string;
  readonly captionOfSelected: string;
  readonly colour: string;
  readonly remove: string;
  readonly picture: string;
  readonly undo: string;
  readonly redo: string;
  readonly polygon: string;
  readonly classes: string;
  readonly brightness: string;
  readonly contrast: string;
  /** The keys, for the toolbar's title text. */
  readonly keys: string;
}

/** What the toolbar's controls do, supplied by the editor. */
export interface VisionToolbarActions {
  addPoint(): void;
  addBox(): void;
  /** The caption field was changed (committed: Enter or leaving it). */
  caption(text: string): void;
  colour(colour: string): void;
  remove(): void;
  undo(): void;
  redo(): void;
  /** Polygon mode on or off. */
  polygon(): void;
  /** A class was picked (index into the record's classes). */
  pickClass(index: number): void;
  /** Brightness and contrast changed (display only, 1 = as is). */
  display(brightness: number, contrast: number): void;
}

/** The toolbar's node and the controls the editor reads or updates. */
export class VisionToolbar {
  readonly node: HTMLDivElement;
  readonly caption: HTMLInputElement;
  readonly colour: HTMLSelectElement;
  private readonly _remove: HTMLButtonElement;
  readonly classes: ClassBar;
  private readonly _polygon: HTMLButtonElement;
  private readonly _undo: HTMLButtonElement;
  private readonly _redo: HTMLButtonElement;
  private readonly _status: HTMLSpanElement;

  constructor(labels: VisionEditorLabels, actions: VisionToolbarActions) {
    this.node = document.createElement('div');
    this.node.className = 'jp-FigureChat-visionToolbar';
    this.node.title = labels.keys;
    const addPoint = button(labels.addPoint, () => actions.addPoint());
    const addBox = button(labels.addBox, () => actions.addBox());
    this._polygon = button(labels.polygon, () => actions.polygon());
    this._polygon.setAttribute('aria-pressed', 'false');
    this.classes = new ClassBar(labels.classes, index => actions.pickClass(index));
    this.caption = document.createElement('input');
    this.caption.type = 'text';
    this.caption.placeholder = labels.caption;
    this.caption.setAttribute('aria-label', labels.captionOfSelected);
    this.caption.className = 'jp-FigureChat-visionCaption';
    this.caption.addEventListener('change', () => actions.caption(this.caption.value));
    this.colour = document.createElement('select');
    this.colour.setAttribute('aria-label', labels.colour);
    this.colour.className = 'jp-FigureChat-visionColour';
    for (const colour of PALETTE) {
      const option = document.createElement('option');
      option.value = colour;
      option.textContent = colour;
      this.colour.appendChild(option);
    }
    this.colour.value = 'green';
    this.colour.addEventListener('change', () => actions.colour(this.colour.value));
    this._remove = button(labels.remove, () => actions.remove());
    this._undo = button(labels.undo, () => actions.undo());
    this._redo = button(labels.redo, () => actions.redo());
    const brightness = slider(labels.brightness);
    const contrast = slider(labels.contrast);
    const display = (): void =>
      actions.display(Number(brightness.input.value) / 100, Number(contrast.input.value) / 100);
    brightness.input.addEventListener('input', display);
    contrast.input.addEventListener('input', display);
    this._status = document.createElement('span');
    this._status.className = 'jp-FigureChat-visionStatus';
    this._status.setAttribute('role', 'status');
    this.node.append(
      addPoint,
      addBox,
      this._polygon,
      this.classes.node,
      this.caption,
      this.colour,
      this._remove,
      this._undo,
      this._redo,
      brightness.node,
      contrast.node,
      this._status
    );
    this.showHistory(false, false);
  }

  /** Show whether clicks draw a polygon. */
  showPolygonMode(on: boolean): void {
    this._polygon.setAttribute('aria-pressed', String(on));
  }

  /** Enable undo and redo as far as there is something to undo or redo. */
  showHistory(canUndo: boolean, canRedo: boolean): void {
    this._undo.disabled = !canUndo;
    this._redo.disabled = !canRedo;
  }

  /** Disable every control: the kernel is out of reach, so no edit could be kept. */
  disable(): void {
    for (const control of this.node.querySelectorAll<HTMLInputElement | HTMLButtonElement>(
      'button, input, select'
    )) {
      control.disabled = true;
    }
  }

  /** Show a problem (an edit the kernel refused), or clear it. */
  setProblem(text: string): void {
    this._status.textContent = text;
  }

  /** Show the selected mark's caption and colour; with none, the mark controls are disabled. */
  showSelected(mark: Mark | undefined): void {
    this.caption.disabled = !mark;
    this._remove.disabled = !mark;
    this.caption.value = mark?.caption ?? '';
    if (mark) {
      this.colour.value = mark.colour;
    }
  }
}

/** A labelled range input from 20 % to 300 %, at 100 %. */
function slider(text: string): { node: HTMLLabelElement; input: HTMLInputElement } {
  const node = document.createElement('label');
  node.className = 'jp-FigureChat-visionSlider';
  node.textContent = text;
  const input = document.createElement('input');
  input.type = 'range';
  input.min = '20';
  input.max = '300';
  input.step = '10';
  input.value = '100';
  node.appendChild(input);
  return { node, input };
}

function button(text: string, onClick: () => void): HTMLButtonElement {
  const element = document.createElement('button');
  element.type = 'button';
  element.textContent = text;
  element.className = 'jp-FigureChat-visionButton';
  element.addEventListener('click', onClick);
  return element;
}
