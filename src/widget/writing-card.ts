/**
 * The card of a tool call the model is still writing: "writing figure… 1.2 KB". It appears as soon
 * as the call's name is known and is replaced in place by the call's real card when the call is
 * complete (same key in the chat view), or disappears if the answer stops before that.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import type { ToolCard } from '../chat/cards';

/** What is being written, in the user's words, for the built-in tools. */
function writingLabel(tool: string, trans: TranslationBundle): string {
  switch (tool) {
    case 'present_svg':
      return trans.__('writing figure…');
    case 'vision_mark':
    case 'vision_update':
      return trans.__('writing marks…');
    case 'vision_show':
      return trans.__('choosing views…');
    default:
      // The name is the model's: long ones are cut so the card stays one line.
      return trans.__('writing %1 call…', tool.length > 60 ? `${tool.slice(0, 60)}…` : tool);
  }
}

/** A size in KB with one decimal, as the card shows it while it grows. */
export function formatWrittenSize(bytes: number, trans: TranslationBundle): string {
  return trans.__('%1 KB', (bytes / 1024).toFixed(1));
}

/** The card of a call in the `writing` state. */
export function renderWritingCard(card: ToolCard, trans: TranslationBundle): HTMLElement {
  const element = document.createElement('div');
  element.className = 'jp-FigureChat-toolCard jp-FigureChat-toolCard-mod-writing';
  element.dataset.tool = card.call.name;
  element.dataset.state = 'writing';
  element.dataset.callId = card.call.id;
  element.setAttribute('aria-busy', 'true');
  const label = document.createElement('span');
  label.className = 'jp-FigureChat-toolCard-state';
  label.textContent = writingLabel(card.call.name, trans);
  const size = document.createElement('span');
  size.className = 'jp-FigureChat-toolCard-size';
  size.textContent = formatWrittenSize(card.bytes ?? 0, trans);
  element.append(label, ' ', size);
  return element;
}
