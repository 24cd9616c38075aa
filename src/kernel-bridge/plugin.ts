/**
 * The kernel bridge plugin: the renderer of live Vision outputs, and — only when ipywidgets'
 * registry is there — the Vision widget's model and view. Without ipywidgets the chat and every
 * saved Figure Chat output work as before; Vision outputs show their saved map.
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { IJupyterWidgetRegistry } from '@jupyter-widgets/base';

import { ILiveVisionWidgets } from '../tokens';
import { LiveVisionModels, WIDGET_MODULE, WIDGET_MODULE_VERSION } from './live-models';
import { LIVE_MIME, LIVE_OUTPUT_RANK, LiveOutputRenderer } from './live-output';

/** Figure and Vision from kernel code. */
export const kernelBridgePlugin: JupyterFrontEndPlugin<ILiveVisionWidgets> = {
  id: 'jupyterlab-figure-chat:kernel-bridge',
  description:
    'Live Vision widgets from kernel code (with ipywidgets), and their saved output without it.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  optional: [IJupyterWidgetRegistry, ITranslator],
  provides: ILiveVisionWidgets,
  activate: (
    _: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    widgets: IJupyterWidgetRegistry | null,
    translator: ITranslator | null
  ): ILiveVisionWidgets => {
    const trans = (translator ?? nullTranslator).load('jupyterlab_figure_chat');
    const live = new LiveVisionModels();
    rendermime.addFactory(
      {
        // Safe: it renders the saved entries through their own (trust-aware) renderers, and a
        // live model exists only when this page's kernel made it.
        safe: true,
        mimeTypes: [LIVE_MIME],
        createRenderer: options => new LiveOutputRenderer(options, live, rendermime, trans)
      },
      LIVE_OUTPUT_RANK
    );
    widgets?.registerWidget({
      name: WIDGET_MODULE,
      version: WIDGET_MODULE_VERSION,
      // Loaded when a kernel first asks for a Vision widget, not at application start.
      exports: async () => {
        const { visionWidgetClasses } = await import('./vision-widget');
        return { ...visionWidgetClasses(live, trans) };
      }
    });
    return live;
  }
};
