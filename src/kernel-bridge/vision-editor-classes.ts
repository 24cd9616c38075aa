/**
 * The class list of a labelling record (`Vision(picture, classes=[…])`) in the editor's toolbar:
 * one button per class in its colour (`classColour`, the same the views and the tools use), the
 * one new marks get pressed. Keys 1–9 pick the first nine (vision-editor-keys.ts).
 */
import { classColour, PALETTE_HEX } from '../tools/vision';

export class ClassBar {
  readonly node: HTMLDivElement;
  private _classes: readonly string[] = [];
  private _current = 0;

  constructor(
    private readonly _label: string,
    private readonly _pick: (index: number) => void
  ) {
    this.node = document.createElement('div');
    this.node.className = 'jp-FigureChat-visionClasses';
    this.node.setAttribute('role', 'group');
    this.node.setAttribute('aria-label', _label);
    this.node.hidden = true;
  }

  /** The class new marks get (an index into the classes), 0 when there are classes. */
  get current(): number {
    return this._current;
  }

  /** Show these classes (none: hidden), with `current` pressed. */
  show(classes: readonly string[] | undefined, current: number): void {
    const list = classes ?? [];
    this._current = list.length ? Math.min(Math.max(0, current), list.length - 1) : 0;
    const same =
      list.length === this._classes.length && list.every((c, i) => c === this._classes[i]);
    if (!same) {
      this._classes = list;
      this.node.replaceChildren(...list.map((name, index) => this._button(name, index)));
    }
    this.node.hidden = list.length === 0;
    this.node.querySelectorAll<HTMLButtonElement>('button').forEach((button, index) => {
      button.setAttribute('aria-pressed', String(index === this._current));
    });
  }

  private _button(name: string, index: number): HTMLButtonElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'jp-FigureChat-visionButton jp-FigureChat-visionClass';
    button.dataset.class = name;
    const swatch = document.createElement('span');
    swatch.className = 'jp-FigureChat-visionSwatch';
    swatch.style.background = PALETTE_HEX[classColour(this._classes, name)];
    button.append(swatch, index < 9 ? `${index + 1} ${name}` : name);
    button.title = `${this._label}: ${name}${index < 9 ? ` (${index + 1})` : ''}`;
    button.addEventListener('click', () => this._pick(index));
    return button;
  }
}
