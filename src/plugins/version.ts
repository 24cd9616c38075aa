/**
 * The start-up check that the figure server answers and is the one this labextension was built
 * with. The server extension runs the figure server's `--version` at Jupyter's start and puts the
 * result in the page config; asking the figure server from here would start it for every user
 * who opens JupyterLab, chat or not (issue 33). Without that result (the server extension is off,
 * or its check has not finished), the figure server is asked as before.
 */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { requestFigureServer } from '../chat/figure-server';

const PACKAGE_VERSION: string = (require('../../package.json') as { version: string }).version;

/** The server extension's start-up check, as it publishes it; null when absent or unreadable. */
function serverCheck(): { ok: boolean; line: string; version: string | null } | null {
  try {
    const value: unknown = JSON.parse(PageConfig.getOption('figureChatCheck') || 'null');
    if (
      value &&
      typeof value === 'object' &&
      'ok' in value &&
      typeof value.ok === 'boolean' &&
      'line' in value &&
      typeof value.line === 'string' &&
      'version' in value &&
      (value.version === null || typeof value.version === 'string')
    ) {
      return { ok: value.ok, line: value.line, version: value.version };
    }
  } catch {
    // Not JSON: treated as absent.
  }
  return null;
}

export const versionPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-figure-chat:version-check',
  description: 'Warns when the figure server is missing or from another version.',
  autoStart: true,
  optional: [ITranslator],
  activate: (_, translator: ITranslator | null) => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_figure_chat');
    const check = serverCheck();
    if (check) {
      if (!check.ok) {
        Notification.error(trans.__('%1 See the Jupyter server log.', check.line), {
          autoClose: false
        });
      } else if (check.version !== PACKAGE_VERSION) {
        Notification.warning(
          trans.__(
            'Figure Chat: the figure server is version %1 but the labextension is %2. Reinstall jupyterlab-figure-chat and restart JupyterLab.',
            String(check.version),
            PACKAGE_VERSION
          ),
          { autoClose: false }
        );
      }
      return;
    }
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
