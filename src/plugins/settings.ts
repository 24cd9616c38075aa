/**
 * Figure Chat's settings as a service: the schema defaults at once, then the user's settings as
 * soon as the setting registry has them, parsed field by field (see `src/chat/settings.ts`).
 *
 * The Settings editor names the endpoint in force and where it came from: the Jupyter server
 * publishes its own endpoint (never the key) in the page config, and the endpoint setting's
 * description is completed from it before the editor reads the schema.
 */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { Signal } from '@lumino/signaling';

import {
  defaultSettings,
  describeEndpointInForce,
  endpointInForce,
  parseServerEndpoint,
  parseSettings,
  type FigureChatSettings,
  type ServerEndpoint
} from '../chat/settings';
import { IFigureChatSettings } from '../tokens';

/** The id of the settings schema (`schema/plugin.json`). */
export const SETTINGS_ID = 'jupyterlab-figure-chat:plugin';

/** The page-config option the server extension (`extension.py`) fills in. */
const SERVER_ENDPOINT_OPTION = 'figureChatServerEndpoint';

/** The endpoint setting's schema description, completed with what is in force when it is empty. */
function withEndpointInForce(
  plugin: ISettingRegistry.IPlugin,
  server: ServerEndpoint
): ISettingRegistry.IPlugin {
  const property = plugin.schema.properties?.endpoint;
  if (!property) {
    return plugin;
  }
  const line = describeEndpointInForce(endpointInForce('', server));
  const description = `${property.description ?? ''} When empty: ${line.replace(/^In force: /, '')}`;
  return {
    ...plugin,
    schema: {
      ...plugin.schema,
      properties: { ...plugin.schema.properties, endpoint: { ...property, description } }
    }
  };
}

class Settings implements IFigureChatSettings {
  current: FigureChatSettings = defaultSettings();
  readonly changed: Signal<IFigureChatSettings, FigureChatSettings> = new Signal(this);
}

export const settingsPlugin: JupyterFrontEndPlugin<IFigureChatSettings> = {
  id: 'jupyterlab-figure-chat:settings',
  description: 'Figure Chat settings, typed and kept current.',
  autoStart: true,
  provides: IFigureChatSettings,
  optional: [ISettingRegistry, ITranslator],
  activate: (
    _,
    registry: ISettingRegistry | null,
    translator: ITranslator | null
  ): IFigureChatSettings => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_figure_chat');
    const settings = new Settings();
    let warned = '';
    let overridden = '';
    const server = parseServerEndpoint(PageConfig.getOption(SERVER_ENDPOINT_OPTION));
    // The schema says `jupyter.lab.transform`, so the registry waits for this before loading it.
    registry?.transform(SETTINGS_ID, { fetch: plugin => withEndpointInForce(plugin, server) });
    void registry?.load(SETTINGS_ID).then(loaded => {
      const read = (): void => {
        const { settings: parsed, ignored } = parseSettings(loaded.composite);
        settings.current = parsed;
        settings.changed.emit(parsed);
        const inForce = endpointInForce(parsed.endpoint, server);
        if (inForce.overridden && inForce.overridden !== overridden) {
          Notification.info(trans.__('Figure Chat: %1', describeEndpointInForce(inForce)), {
            autoClose: 8000
          });
        }
        overridden = inForce.overridden ?? '';
        if (ignored.length && ignored.join() !== warned) {
          Notification.warning(
            trans.__(
              'Figure Chat ignored these settings because their values do not fit the schema: %1. Fix them in Settings → Figure Chat.',
              ignored.join(', ')
            ),
            { autoClose: 8000 }
          );
        }
        warned = ignored.join();
      };
      read();
      loaded.changed.connect(read);
    });
    return settings;
  }
};
