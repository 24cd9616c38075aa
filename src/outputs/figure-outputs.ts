/**
 * The MIME renderer plugin: notebook outputs carrying `application/vnd.figure-chat.figure+json`
 * (written by the Python `Figure` and `Vision`) render through the figure server, re-checked.
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { requestFigureServer } from '../chat/figure-server';
import { PictureNotFoundError, pictureRequest, type PictureRequest } from '../chat/tools/pictures';
// Needed at activation: the factory must be registered before any notebook renders its outputs.
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { FIGURE_OUTPUT_RANK, figureOutputRendererFactory } from '../widget/mime-renderer';

/**
 * A picture for an output's view. A `cell:` picture is looked up in every open notebook, the
 * current one first: a renderer does not know which notebook its output is in.
 */
function findPicture(tracker: INotebookTracker | null, address: string): PictureRequest {
  if (!address.startsWith('cell:')) {
    return { address };
  }
  const panels = tracker ? [tracker.currentWidget] : [];
  tracker?.forEach(panel => panels.push(panel));
  let lastError: unknown = new PictureNotFoundError(`No open notebook has the picture ${address}.`);
  for (const panel of panels) {
    if (!panel?.model) {
      continue;
    }
    try {
      return pictureRequest(panel.model, address);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** Registers the renderer for Figure Chat output bundles. */
export const figureOutputPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:figure-output',
  description: 'Renders Figure Chat figures and vision views in notebook outputs, re-checked.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  optional: [INotebookTracker, ITranslator],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    tracker: INotebookTracker | null,
    translator: ITranslator | null
  ) => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_figure_chat');
    rendermime.addFactory(
      figureOutputRendererFactory({
        trans,
        request: (route, body, signal) => requestFigureServer(route, body, signal),
        picture: address => findPicture(tracker, address),
        openViewer: (src, title) => {
          void import('../widget/larger-view').then(({ createLargerView }) => {
            const widget = createLargerView(src, title, trans);
            app.shell.add(widget, 'main');
            app.shell.activateById(widget.id);
          });
        }
      }),
      FIGURE_OUTPUT_RANK
    );
  }
};
