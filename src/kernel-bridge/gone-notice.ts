/**
 * The notice a Vision output shows above its saved picture once its kernel went away: why it is
 * no longer editable, and — when the person's last edits never reached the saved output (the
 * kernel re-renders it a second after an edit, and the kernel can go within that second) — that
 * they were not saved, with a button that copies those marks so they can be put back with
 * `v.marks = …` after running the cell again.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';

import { FIGURE_MIME } from '../tools/bundle';
import type { GoneReason } from './kernel-link';
import type { GoneModel } from './live-models';
import { field, sameMarks } from './same-record';

/**
 * The marks the page held when the kernel went away, if the saved output's bundle does not hold
 * them (null when they are saved, or when there is no bundle to compare with).
 */
export function unsavedMarks(data: ReadonlyPartialJSONObject, gone: GoneModel): unknown[] | null {
  const saved = field(data[FIGURE_MIME], 'record');
  const marks = field(gone.record, 'marks');
  if (saved === undefined || !Array.isArray(marks)) {
    return null;
  }
  return sameMarks(saved, gone.record) ? null : marks;
}

/** Why a Vision output can no longer be edited, in a sentence. */
export function goneText(reason: GoneReason, trans: TranslationBundle): string {
  return reason === 'restarted'
    ? trans.__('The kernel restarted: run the cell again to edit.')
    : reason === 'stopped'
      ? trans.__('The kernel shut down: run the cell again to edit.')
      : trans.__('This widget was closed in the kernel: run the cell again to edit.');
}

/** The notice's node. */
export function goneNotice(
  gone: GoneModel,
  unsaved: unknown[] | null,
  trans: TranslationBundle
): HTMLDivElement {
  const node = document.createElement('div');
  node.className = 'jp-FigureChat-visionNotice';
  node.setAttribute('role', 'status');
  const why = document.createElement('span');
  why.textContent = goneText(gone.reason, trans);
  node.appendChild(why);
  if (unsaved) {
    node.classList.add('jp-mod-unsaved');
    const lost = document.createElement('span');
    lost.textContent = trans.__(
      'Your last edits were not saved: the picture below shows the marks as last saved.'
    );
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.className = 'jp-FigureChat-visionButton';
    copy.textContent = trans.__('Copy unsaved marks');
    copy.title = trans.__('Copy the marks as JSON, to assign to v.marks after running the cell');
    copy.addEventListener('click', () => {
      void navigator.clipboard.writeText(JSON.stringify(unsaved)).then(
        () => (copy.textContent = trans.__('Copied')),
        () => (copy.textContent = trans.__('Could not copy'))
      );
    });
    node.append(lost, copy);
  }
  return node;
}
