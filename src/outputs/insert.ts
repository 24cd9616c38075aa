/**
 * "Insert into notebook": a figure or vision view of the active notebook's conversation becomes a
 * Markdown cell below the active cell, carrying the output bundle, a PNG and the alt text (and the
 * SVG for figures). The command and the card buttons; the work is in `widget/insert-figure.ts`.
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ITranslator, nullTranslator, type TranslationBundle } from '@jupyterlab/translation';

import { IFigureChatTools } from '../tokens';

/** The command id. */
export const INSERT_FIGURE = 'figure-chat:insert-figure';

function readArgs(args: Record<string, unknown>): { call?: string; view?: number } {
  const call = typeof args.call === 'string' ? args.call : undefined;
  const view =
    typeof args.view === 'number' && Number.isInteger(args.view) && args.view >= 0
      ? args.view
      : undefined;
  return { call, view };
}

function register(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  tools: IFigureChatTools,
  trans: TranslationBundle
): void {
  app.commands.addCommand(INSERT_FIGURE, {
    label: trans.__('Insert Figure Chat Figure into Notebook'),
    caption: trans.__(
      'Insert a figure or view of the conversation below the active cell, as a Markdown cell that keeps it through Run All, Clear All Outputs and saving.'
    ),
    isEnabled: () => tracker.currentWidget !== null,
    describedBy: {
      args: {
        type: 'object',
        properties: {
          call: {
            type: 'string',
            description: 'The tool call id; without it, the latest figure or view.'
          },
          view: {
            type: 'integer',
            minimum: 0,
            description: "Which of the call's views (0, the first, by default)."
          }
        }
      }
    },
    execute: async args => {
      const panel = tracker.currentWidget;
      if (!panel) {
        Notification.error(trans.__('Open a notebook to insert a figure into.'));
        return;
      }
      try {
        const { insertFigure } = await import('../widget/insert-figure');
        await insertFigure(panel, readArgs(args));
      } catch (error) {
        Notification.error(
          trans.__(
            'Figure Chat: could not insert the figure: %1',
            error instanceof Error ? error.message : String(error)
          ),
          { autoClose: 8000 }
        );
      }
    }
  });
  tools.cards.setInsert((call, view) => {
    void app.commands.execute(INSERT_FIGURE, { call, view });
  });
}

/** The "Insert into notebook" command and the card buttons that run it. */
export const insertPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:insert',
  description: 'Inserts chat figures and vision views into the notebook below the active cell.',
  autoStart: true,
  requires: [IFigureChatTools, INotebookTracker],
  optional: [ITranslator],
  activate: (
    app: JupyterFrontEnd,
    tools: IFigureChatTools,
    tracker: INotebookTracker,
    translator: ITranslator | null
  ) => {
    register(app, tracker, tools, (translator ?? nullTranslator).load('jupyterlab_figure_chat'));
  }
};
