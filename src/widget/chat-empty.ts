/**
 * The empty chat: what the model can do here, and three example prompts that use its tools on
 * this notebook (a click puts one in the message box).
 */
import type { TranslationBundle } from '@jupyterlab/translation';

/** The empty state; `fill` puts a prompt into the message box. */
export function renderEmptyState(
  trans: TranslationBundle,
  fill: (prompt: string) => void
): HTMLElement {
  const empty = document.createElement('div');
  empty.className = 'jp-FigureChat-empty';
  const intro = document.createElement('p');
  intro.textContent = trans.__(
    'Ask the model about this notebook: it can read the cells, draw figures and look at pictures. The conversation is saved in the notebook.'
  );
  empty.append(intro);
  const prompts = [
    trans.__('Summarise what this notebook does, cell by cell.'),
    trans.__('Draw a diagram of the data flow in this notebook.'),
    trans.__('Look at the first image output and describe what it shows.')
  ];
  for (const prompt of prompts) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'jp-FigureChat-examplePrompt';
    button.textContent = prompt;
    button.onclick = () => fill(prompt);
    empty.append(button);
  }
  return empty;
}
