/**
 * The Vision widget's model and view (`@jupyter-widgets/base`), registered under the module name
 * the Python `Vision` asks for. The view hosts a {@link VisionEditor}; the model carries the
 * record (`_record`, checked again by the kernel) and the picture's size. The preview is not a
 * synced trait (widget state would store it in the notebook): the kernel pushes it as a binary
 * buffer in a custom message when the widget is displayed, and sends it again when a view asks
 * (`{method: "preview"}`), as after a page reload. The model keeps it for every view.
 *
 * While the kernel is pushing previews it says so (`_preview_pending`), so a view built before
 * the pushed one arrives waits for it instead of asking for another copy; it asks only if the
 * push ends without one having come (the page connected after it was sent).
 */
import { DOMWidgetModel, DOMWidgetView } from '@jupyter-widgets/base';
import type { TranslationBundle } from '@jupyterlab/translation';

import { bytesToBase64 } from '../tools/figure-client';
import { validateRecord, type VisionRecord } from '../tools/vision';
import { goneText } from './gone-notice';
import type { GoneReason } from './kernel-link';
import { GONE_EVENT, type LiveVisionModels } from './live-models';
import { VisionEditor } from './vision-editor';

import { WIDGET_MODULE, WIDGET_MODULE_VERSION } from './live-models';

/** The model event fired when the preview has arrived. */
const PREVIEW_EVENT = 'figure-chat:preview';

/** Image types the preview may have; anything else from the kernel is refused. */
const PREVIEW_MIMES = new Set(['image/jpeg', 'image/png']);

/**
 * The preview as a `data:` URL, from a buffer as ipywidgets hands it over. Not a blob URL: an
 * `<img>` loads a `data:` URL at once, in the page, so the frame after the preview arrives can
 * paint it; a blob URL is fetched through the browser process first, a round trip under load.
 * A quick preview is about 12 kB, a sharp one about 150 kB; the model keeps one string.
 */
function previewUrl(value: unknown, mime: string): string | null {
  const bytes =
    value instanceof DataView || value instanceof Uint8Array
      ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
      : value instanceof ArrayBuffer
        ? new Uint8Array(value)
        : null;
  return bytes && bytes.length > 0 ? `data:${mime};base64,${bytesToBase64(bytes)}` : null;
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

    /** The preview (a `data:` URL), once the kernel has sent it; shared by every view. */
    preview: string | null = null;
    private _previewWidth = 0;
    private _asked = false;
    private _wanted = false;

    initialize(...args: Parameters<DOMWidgetModel['initialize']>): void {
      super.initialize(...args);
      this.on('msg:custom', this._onCustom, this);
      this.on('change:_preview_pending', this._onPendingChanged, this);
      live.add(this);
    }

    /**
     * Ask the kernel for the preview unless it has come or was asked for already, or the kernel
     * is pushing one now (then ask only if the push ends without it).
     */
    askPreview(): void {
      if (this.preview || this._asked) {
        return;
      }
      if (this.get('_preview_pending') === true) {
        this._wanted = true;
        return;
      }
      this._asked = true;
      this.send({ method: 'preview' }, {});
    }

    private _onPendingChanged(): void {
      if (this._wanted && this.get('_preview_pending') !== true) {
        this._wanted = false;
        this.askPreview();
      }
    }

    private _onCustom(content: unknown, buffers: unknown): void {
      const message = (content ?? {}) as Record<string, unknown>;
      // A quick preview comes first, then a sharper one; never go back to a smaller one.
      const width = positiveInt(message.width);
      if (message.event !== 'preview' || (this.preview && width <= this._previewWidth)) {
        return;
      }
      const mime = typeof message.mime === 'string' ? message.mime : '';
      const url =
        Array.isArray(buffers) && PREVIEW_MIMES.has(mime) ? previewUrl(buffers[0], mime) : null;
      if (url) {
        this.preview = url;
        this._previewWidth = width;
        this.trigger(PREVIEW_EVENT);
      }
    }
  }

  class FigureChatVisionView extends DOMWidgetView {
    private _editor: VisionEditor | null = null;

    render(): void {
      this.el.classList.add('jp-FigureChat-vision');
      const model = this.model as FigureChatVisionModel;
      this.listenTo(model, PREVIEW_EVENT, this._onPreview);
      // The editor (toolbar, marks, the picture's room) is laid out before the preview comes, so
      // its arrival only puts a decoded image in place: nothing else is left for the first paint.
      this._showEditor();
      if (model.preview) {
        this._onPreview();
        return;
      }
      // The kernel pushes the preview right after displaying the widget; a view made later (a
      // reload, a second view) asks for it, once no push is under way.
      model.askPreview();
    }

    private _onPreview(): void {
      const url = (this.model as FigureChatVisionModel).preview;
      if (url && this._editor) {
        void this._editor.setPreview(url);
      }
    }

    private _showEditor(): void {
      const size = {
        width: positiveInt(this.model.get('_width')),
        height: positiveInt(this.model.get('_height'))
      };
      this.el.textContent = '';
      if (!size.width || !size.height) {
        this.el.textContent = trans.__('This Vision widget has no picture.');
        return;
      }
      this._editor = new VisionEditor({
        ...size,
        labels: {
          addPoint: trans.__('Add point'),
          addBox: trans.__('Add box'),
          caption: trans.__('Caption'),
          captionOfSelected: trans.__('Caption of the selected mark'),
          colour: trans.__('Colour of the selected mark, or of new marks'),
          remove: trans.__('Delete mark'),
          undo: trans.__('Undo'),
          redo: trans.__('Redo'),
          brightness: trans.__('Brightness'),
          contrast: trans.__('Contrast'),
          picture: trans.__(
            'Picture marks: click to add a point, drag to draw a box, drag a mark to move it, drag a corner or edge of the selected box to resize it, Tab to select marks, arrows to move, Shift+arrows to resize, Delete to remove'
          ),
          keys: trans.__(
            'Keys on the picture: arrows move the selected mark (Ctrl/Cmd: 10 pixels), Shift+arrows resize the selected box, Delete removes it, Escape deselects, Enter edits its caption, Ctrl/Cmd+Z undoes, Shift+Ctrl/Cmd+Z redoes. Brightness and contrast change only what you see.'
          )
        },
        onChange: record => {
          // An edit that cannot reach a kernel is never taken (the editor refuses it too).
          if (live.gone(this.model.model_id)) {
            return;
          }
          this.model.set('_record', record);
          this.touch();
        }
      });
      const gone = live.gone(this.model.model_id);
      if (gone) {
        this._onGone(gone.reason);
      }
      this.listenTo(this.model, GONE_EVENT, this._onGone);
      this.el.appendChild(this._editor.node);
      this._showRecord();
      this.listenTo(this.model, 'change:_record', this._showRecord);
      this.listenTo(this.model, 'change:_problem', () =>
        this._editor?.setProblem(String(this.model.get('_problem') ?? ''))
      );
    }

    /** The kernel is out of reach: no more edits, and say so (the output shows the saved one). */
    private _onGone(reason: GoneReason): void {
      this._editor?.setGone(goneText(reason, trans));
    }

    remove(): void {
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
