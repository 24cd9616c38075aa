/**
 * The Vision widget's model and view (`@jupyter-widgets/base`), registered under the module name
 * the Python `Vision` asks for. The view hosts a {@link VisionEditor}; the model carries the
 * record (`_record`, checked again by the kernel), the picture's size and the preview bytes,
 * which arrive once as a binary buffer.
 */
import { DOMWidgetModel, DOMWidgetView } from '@jupyter-widgets/base';
import type { TranslationBundle } from '@jupyterlab/translation';

import { validateRecord, type VisionRecord } from '../tools/vision';
import type { LiveVisionModels } from './live-models';
import { VisionEditor } from './vision-editor';

import { WIDGET_MODULE, WIDGET_MODULE_VERSION } from './live-models';

/** The preview's bytes, as ipywidgets hands a `Bytes` trait over (a DataView on the buffer). */
function previewBlob(value: unknown, mime: string): Blob | null {
  if (value instanceof DataView) {
    return new Blob([new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice()], {
      type: mime
    });
  }
  if (value instanceof ArrayBuffer || value instanceof Uint8Array) {
    return new Blob([value], { type: mime });
  }
  return null;
}

function positiveInt(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
}

/** The model and view classes, bound to the page's live-model list and translations. */
export function visionWidgetClasses(
  live: LiveVisionModels,
  trans: TranslationBundle
): { FigureChatVisionModel: typeof DOMWidgetModel; FigureChatVisionView: typeof DOMWidgetView } {
  class FigureChatVisionModel extends DOMWidgetModel {
    defaults(): ReturnType<DOMWidgetModel['defaults']> {
      return {
        ...super.defaults(),
        _model_name: 'FigureChatVisionModel',
        _model_module: WIDGET_MODULE,
        _model_module_version: WIDGET_MODULE_VERSION,
        _view_name: 'FigureChatVisionView',
        _view_module: WIDGET_MODULE,
        _view_module_version: WIDGET_MODULE_VERSION
      };
    }

    initialize(...args: Parameters<DOMWidgetModel['initialize']>): void {
      super.initialize(...args);
      live.add(this);
    }
  }

  class FigureChatVisionView extends DOMWidgetView {
    private _editor: VisionEditor | null = null;
    private _url = '';

    render(): void {
      const size = {
        width: positiveInt(this.model.get('_width')),
        height: positiveInt(this.model.get('_height'))
      };
      const blob = previewBlob(
        this.model.get('_preview'),
        String(this.model.get('_preview_mime') || 'image/jpeg')
      );
      this.el.classList.add('jp-FigureChat-vision');
      if (!blob || !size.width || !size.height) {
        this.el.textContent = trans.__('This Vision widget has no picture.');
        return;
      }
      this._url = URL.createObjectURL(blob);
      this._editor = new VisionEditor({
        ...size,
        previewUrl: this._url,
        labels: {
          addPoint: trans.__('Add point'),
          addBox: trans.__('Add box'),
          caption: trans.__('Caption'),
          captionOfSelected: trans.__('Caption of the selected mark'),
          colour: trans.__('Colour of the selected mark, or of new marks'),
          remove: trans.__('Delete mark'),
          picture: trans.__(
            'Picture marks: click to add a point, drag to draw a box, drag a mark to move it, Tab to select marks, arrows to move, Delete to remove'
          )
        },
        onChange: record => {
          this.model.set('_record', record);
          this.touch();
        }
      });
      this.el.appendChild(this._editor.node);
      this._showRecord();
      this.listenTo(this.model, 'change:_record', this._showRecord);
      this.listenTo(this.model, 'change:_problem', () =>
        this._editor?.setProblem(String(this.model.get('_problem') ?? ''))
      );
    }

    remove(): void {
      if (this._url) {
        URL.revokeObjectURL(this._url);
        this._url = '';
      }
      this._editor = null;
      super.remove();
    }

    private _showRecord(): void {
      const editor = this._editor;
      if (!editor) {
        return;
      }
      const size = {
        width: positiveInt(this.model.get('_width')),
        height: positiveInt(this.model.get('_height'))
      };
      let record: VisionRecord;
      try {
        // The state comes from the kernel; it is still checked before it is drawn.
        record = validateRecord(this.model.get('_record'), size);
      } catch (error) {
        editor.setProblem(error instanceof Error ? error.message : String(error));
        return;
      }
      editor.setRecord(record);
    }
  }

  return { FigureChatVisionModel, FigureChatVisionView };
}
