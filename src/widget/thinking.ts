/**
 * The "Thinking" block of an assistant message: the model's reasoning (from `reasoning_content`,
 * `reasoning` or `<think>` text), collapsed by default, live while the reply streams. Shown as
 * plain text, never as Markdown: it is the model's scratch work, not its answer.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import type { AssistantMessage } from '../tools/transcript';

/** The CSS class of the block, also used to find it in the element it replaces. */
export const THINKING_CLASS = 'jp-FigureChat-thinking';

/**
 * Render the block, or null when the message has no reasoning. `previous` is the element this
 * render replaces (the message re-renders as it streams), so a block the user opened stays open.
 */
export function renderThinking(
  message: AssistantMessage,
  live: boolean,
  trans: TranslationBundle,
  previous?: HTMLElement
): HTMLElement | null {
  const reasoning = message.reasoning?.trim();
  if (!reasoning) {
    return null;
  }
  const details = document.createElement('details');
  details.className = live ? `${THINKING_CLASS} ${THINKING_CLASS}-mod-live` : THINKING_CLASS;
  const before = previous?.querySelector<HTMLDetailsElement>(`details.${THINKING_CLASS}`);
  details.open = before?.open ?? false;
  const summary = document.createElement('summary');
  summary.textContent = live && !message.content ? trans.__('Thinking…') : trans.__('Thinking');
  const body = document.createElement('div');
  body.className = `${THINKING_CLASS}-text`;
  body.textContent = reasoning;
  details.append(summary, body);
  return details;
}
