/** The start-up check that the figure server answers and is the one this labextension was built with. */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { requestFigureServer } from '../chat/figure-server';

const PACKAGE_VERSION: string = (require('../../package.json') as { version: string }).version;

export const versionPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:version-check',
  description: 'Warns when the figure server is missing or from another version.',
  autoStart: true,
  optional: [ITranslator],
  activate: (_, translator: ITranslator | null) => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_figure_chat');
    requestFigureServer<{ version?: string }>('version')
      .then(answer => {
        if (answer.version !== PACKAGE_VERSION) {
          Notification.warning(
            trans.__(
              'Figure Chat: the figure server is version %1 but the labextension is %2. Reinstall jupyterlab-figure-chat and restart JupyterLab.',
              String(answer.version),
              PACKAGE_VERSION
            ),
            { autoClose: false }
          );
        }
      })
      .catch((error: Error) => {
        Notification.error(
          trans.__(
            'Figure Chat: the figure server did not start (%1). Check that jupyter-server-proxy is enabled and see the Jupyter server log.',
            error.message
          ),
          { autoClose: false }
        );
      });
  }
};
