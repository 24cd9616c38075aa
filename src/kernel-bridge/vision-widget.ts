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
import { editorLabels } from './vision-editor-labels';
import { readSetState, SetBar, type SetAction } from './vision-set-bar';

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
      this.on('change:_address', this._onPictureChanged, this);
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

    /** A picture set moved to another picture: its preview is on its way from the kernel. */
    private _onPictureChanged(): void {
      this.preview = null;
      this._previewWidth = 0;
      this._asked = false;
    }

    private _onCustom(content: unknown, buffers: unknown): void {
      const message = (content ?? {}) as Record<string, unknown>;
      if (message.event !== 'preview') {
        return;
      }
      const address = typeof message.address === 'string' ? message.address : null;
      if (address !== null && address !== this.get('_address')) {
        // Custom messages are handled at once, state updates a promise later: the new picture's
        // address may still be on its way. Check again once it has been applied; a preview of a
        // picture the set has moved away from is dropped.
        void this.state_change.then(() => {
          if (address === this.get('_address')) {
            this._takePreview(message, buffers);
          }
        });
        return;
      }
      this._takePreview(message, buffers);
    }

    private _takePreview(message: Record<string, unknown>, buffers: unknown): void {
      // A quick preview comes first, then a sharper one; never go back to a smaller one.
      const width = positiveInt(message.width);
      if (this.preview && width <= this._previewWidth) {
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
    private _setBar: SetBar | null = null;
    /** The class chosen for new marks, kept when a set moves to another picture. */
    private _classIndex = 0;

    render(): void {
      this.el.classList.add('jp-FigureChat-vision');
      const model = this.model as FigureChatVisionModel;
      this._setBar = new SetBar(trans, action => this._setAction(action));
      this._setBar.show(readSetState(model.get('_set')));
      this.listenTo(model, PREVIEW_EVENT, this._onPreview);
      this.listenTo(model, 'change:_record', this._showRecord);
      this.listenTo(model, 'change:_set', () =>
        this._setBar?.show(readSetState(model.get('_set')))
      );
      this.listenTo(model, 'change', () => {
        // A picture set moved on: a new picture, maybe of another size, in a new editor.
        if (['_address', '_width', '_height'].some(key => model.hasChanged(key))) {
          this._showEditor();
        }
      });
      this.listenTo(model, 'change:_problem', () =>
        this._editor?.setProblem(String(model.get('_problem') ?? ''))
      );
      this.listenTo(model, GONE_EVENT, this._onGone);
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

    /** Prev / Next / Skip / Submit: the kernel moves the set and sends the new picture. */
    private _setAction(action: SetAction): boolean {
      if (live.gone(this.model.model_id) || !readSetState(this.model.get('_set'))) {
        return false;
      }
      this.model.send({ method: 'set', action }, {});
      return true;
    }

    private _showEditor(): void {
      const size = {
        width: positiveInt(this.model.get('_width')),
        height: positiveInt(this.model.get('_height'))
      };
      this.el.textContent = '';
      this._editor = null;
      if (this._setBar) {
        this.el.appendChild(this._setBar.node);
      }
      if (!size.width || !size.height) {
        this.el.appendChild(
          document.createTextNode(trans.__('This Vision widget has no picture.'))
        );
        return;
      }
      this._editor = new VisionEditor({
        ...size,
        labels: editorLabels(trans),
        onChange: record => {
          // An edit that cannot reach a kernel is never taken (the editor refuses it too).
          if (live.gone(this.model.model_id)) {
            return;
          }
          this.model.set('_record', record);
          this.touch();
        },
        onSetKey: action => this._setAction(action),
        classIndex: this._classIndex,
        onClass: index => (this._classIndex = index)
      });
      this.el.appendChild(this._editor.node);
      this._showRecord();
      const problem = String(this.model.get('_problem') ?? '');
      if (problem) {
        this._editor.setProblem(problem);
      }
      const gone = live.gone(this.model.model_id);
      if (gone) {
        this._onGone(gone.reason);
      }
      this._onPreview();
    }

    /** The kernel is out of reach: no more edits, and say so (the output shows the saved one). */
    private _onGone(reason: GoneReason): void {
      this._editor?.setGone(goneText(reason, trans));
      this._setBar?.disable();
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
