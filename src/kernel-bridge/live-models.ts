/**
 * The Vision widget models alive in this page, by model id. The output renderer looks a model up
 * here to show the live widget, and falls back to the saved bundle when there is none.
 */
import type { DOMWidgetModel } from '@jupyter-widgets/base';
import { Signal, type ISignal } from '@lumino/signaling';

/** The widget module the Python side names (`_model_module`). */
export const WIDGET_MODULE = 'jupyterlab-figure-chat';

/** This module's version; the Python side asks for `^1.0.0`. */
export const WIDGET_MODULE_VERSION = '1.0.0';

/** Live Vision models; owned by the kernel-bridge plugin. */
export class LiveVisionModels {
  private readonly _models = new Map<string, DOMWidgetModel>();
  private readonly _changed = new Signal<this, string>(this);

  /** Emits a model id when its model arrives or goes away. */
  get changed(): ISignal<this, string> {
    return this._changed;
  }

  get(id: string): DOMWidgetModel | undefined {
    return this._models.get(id);
  }

  /** Track a model until its comm closes (kernel restarted or shut down, widget closed). */
  add(model: DOMWidgetModel): void {
    const id = model.model_id;
    this._models.set(id, model);
    model.once('comm:close destroy', () => {
      if (this._models.get(id) === model) {
        this._models.delete(id);
        this._changed.emit(id);
      }
    });
    this._changed.emit(id);
  }
}
