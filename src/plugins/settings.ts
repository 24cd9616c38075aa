/**
 * Figure Chat's settings as a service: the schema defaults at once, then the user's settings as
 * soon as the setting registry has them, parsed field by field (see `src/chat/settings.ts`).
 */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { Signal } from '@lumino/signaling';

import { defaultSettings, parseSettings, type FigureChatSettings } from '../chat/settings';
import { IFigureChatSettings } from '../tokens';

/** The id of the settings schema (`schema/plugin.json`). */
export const SETTINGS_ID = 'jupyterlab-figure-chat:plugin';

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
    void registry?.load(SETTINGS_ID).then(loaded => {
      const read = (): void => {
        const { settings: parsed, ignored } = parseSettings(loaded.composite);
        settings.current = parsed;
        settings.changed.emit(parsed);
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
