/**
 * The toolbar of a picture set (`VisionSet`, the `_set` trait): Prev / Next / Skip / Submit, the
 * picture's name and status, and the progress ("12 / 200 labelled"). The buttons send the
 * contract's custom message (`{method: "set", action}`); the kernel moves and sends the new
 * picture's record, size and preview. Keys: ← → and Enter on the picture (vision-editor.ts).
 */
import type { TranslationBundle } from '@jupyterlab/translation';

export type SetAction = 'prev' | 'next' | 'skip' | 'submit';

/** Where a set stands, read from the untrusted `_set` trait (null: not a set). */
export interface SetState {
  readonly index: number;
  readonly count: number;
  readonly labelled: number;
  readonly name: string;
  readonly status: 'new' | 'submitted' | 'skipped';
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/** The set's state, or null when `_set` is empty or malformed (a plain Vision). */
export function readSetState(value: unknown): SetState | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return null;
  }
  const raw = value as Record<string, unknown>;
  const index = count(raw.index);
  const total = count(raw.count);
  const labelled = count(raw.labelled);
  if (index === null || total === null || labelled === null || index >= total) {
    return null;
  }
  const status =
    raw.status === 'submitted' || raw.status === 'skipped' ? raw.status : ('new' as const);
  const name = typeof raw.name === 'string' ? raw.name.slice(0, 200) : '';
  return { index, count: total, labelled: Math.min(labelled, total), name, status };
}

export class SetBar {
  readonly node: HTMLDivElement;
  private readonly _buttons: Record<SetAction, HTMLButtonElement>;
  private readonly _where: HTMLSpanElement;
  private readonly _progress: HTMLSpanElement;

  constructor(
    private readonly _trans: TranslationBundle,
    act: (action: SetAction) => void
  ) {
    this.node = document.createElement('div');
    this.node.className = 'jp-FigureChat-visionSet';
    this.node.title = _trans.__(
      'Keys on the picture with no mark selected: ← previous, → next, Enter submit'
    );
    const make = (action: SetAction, text: string): HTMLButtonElement => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'jp-FigureChat-visionButton';
      button.dataset.action = action;
      button.textContent = text;
      button.addEventListener('click', () => act(action));
      return button;
    };
    this._buttons = {
      prev: make('prev', _trans.__('Prev')),
      next: make('next', _trans.__('Next')),
      skip: make('skip', _trans.__('Skip')),
      submit: make('submit', _trans.__('Submit'))
    };
    this._where = document.createElement('span');
    this._where.className = 'jp-FigureChat-visionSetWhere';
    this._progress = document.createElement('span');
    this._progress.className = 'jp-FigureChat-visionSetProgress';
    this._progress.setAttribute('role', 'status');
    const { prev, next, skip, submit } = this._buttons;
    this.node.append(prev, next, skip, submit, this._where, this._progress);
    this.node.hidden = true;
  }

  /** Show where the set stands (null: not a set, hidden). */
  show(state: SetState | null): void {
    this.node.hidden = state === null;
    if (!state) {
      return;
    }
    this._buttons.prev.disabled = state.index === 0;
    this._buttons.next.disabled = state.index >= state.count - 1;
    const status =
      state.status === 'submitted'
        ? this._trans.__('submitted')
        : state.status === 'skipped'
          ? this._trans.__('skipped')
          : this._trans.__('new');
    this._where.textContent = this._trans.__(
      '%1 of %2: %3 (%4)',
      state.index + 1,
      state.count,
      state.name,
      status
    );
    this._progress.textContent = this._trans.__('%1 / %2 labelled', state.labelled, state.count);
  }

  /** Disable every button: the kernel is out of reach. */
  disable(): void {
    for (const button of Object.values(this._buttons)) {
      button.disabled = true;
    }
  }
}
