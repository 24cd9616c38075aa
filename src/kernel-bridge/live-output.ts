/**
 * The renderer of `application/vnd.figure-chat.widget+json`, the entry a Python `Vision` output
 * carries beside its bundle. With the widget model alive in this page it shows the live widget;
 * otherwise (reopened notebook, kernel restarted or shut down, no ipywidgets) it renders the rest
 * of the output — the Figure Chat bundle, else the PNG — exactly as if this entry were absent.
 *
 * Why its own MIME type and not `application/vnd.jupyter.widget-view+json`: jupyterlab-manager's
 * renderer for that type (rank -10) prints "Error displaying widget: model not found" once the
 * model is gone, and it would win over every fallback in the output. This type is known only to
 * this extension; it ranks first ({@link LIVE_OUTPUT_RANK}) so it decides, and it always has the
 * saved bundle to fall back on. Other front ends skip it and show the PNG.
 */
import { MimeModel, type IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Panel, Widget } from '@lumino/widgets';

import { goneNotice, unsavedMarks } from './gone-notice';
import type { LiveVisionModels } from './live-models';

/** The output entry naming a live Vision widget model. */
export const LIVE_MIME = 'application/vnd.figure-chat.widget+json';

/**
 * Rank of the live-output renderer: before jupyterlab-manager's widget view (-10) and the Figure
 * Chat bundle renderer, so this renderer is the one that chooses between live and saved.
 */
export const LIVE_OUTPUT_RANK = -20;

function modelIdOf(data: ReadonlyPartialJSONObject): string {
  const entry = data[LIVE_MIME];
  const id =
    entry && typeof entry === 'object' && !Array.isArray(entry)
      ? (entry as ReadonlyPartialJSONObject).model_id
      : undefined;
  return typeof id === 'string' ? id : '';
}

/** Shows the live widget when it exists, else the saved output. */
export class LiveOutputRenderer extends Panel implements IRenderMime.IRenderer {
  private _model: IRenderMime.IMimeModel | null = null;
  private _shown: { kind: 'live'; id: string } | { kind: 'saved' } | null = null;

  constructor(
    private readonly _options: IRenderMime.IRendererOptions,
    private readonly _live: LiveVisionModels,
    private readonly _rendermime: IRenderMimeRegistry,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-FigureChat-liveOutput');
    this._live.changed.connect(this._onLiveChanged, this);
  }

  get mimeType(): string {
    return this._options.mimeType;
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._model = model;
    const id = modelIdOf(model.data);
    const live = id ? this._live.get(id) : undefined;
    if (live) {
      if (this._shown?.kind === 'live' && this._shown.id === id) {
        // An update_display of the same widget: the live view already shows the new marks.
        return;
      }
      const view = await live.widget_manager.create_view(live);
      if (this.isDisposed || this._model !== model) {
        view.remove();
        return;
      }
      this._show(view.luminoWidget, { kind: 'live', id });
      return;
    }
    await this._renderSaved(model);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._live.changed.disconnect(this._onLiveChanged, this);
    super.dispose();
  }

  /** The output without this entry, rendered by whatever renders it best here. */
  private async _renderSaved(model: IRenderMime.IMimeModel): Promise<void> {
    const data: Record<string, unknown> = { ...model.data };
    delete data[LIVE_MIME];
    const rest = data as ReadonlyPartialJSONObject;
    const mime = this._rendermime.preferredMimeType(rest, model.trusted ? 'any' : 'ensure');
    if (!mime) {
      return;
    }
    const renderer = this._rendermime.createRenderer(mime);
    await renderer.renderModel(
      new MimeModel({ data: rest, metadata: model.metadata, trusted: model.trusted })
    );
    if (this.isDisposed || this._model !== model) {
      renderer.dispose();
      return;
    }
    // A model this page had live whose kernel went away: say why it is not editable, and whether
    // the person's last edits are in what is shown.
    const gone = this._live.gone(modelIdOf(model.data));
    const notice = gone
      ? new Widget({ node: goneNotice(gone, unsavedMarks(model.data, gone), this._trans) })
      : null;
    this._show(renderer, { kind: 'saved' }, notice);
  }

  private _show(
    widget: Widget,
    shown: { kind: 'live'; id: string } | { kind: 'saved' },
    notice: Widget | null = null
  ): void {
    for (const child of [...this.widgets]) {
      child.dispose();
    }
    if (notice) {
      this.addWidget(notice);
    }
    this.addWidget(widget);
    this._shown = shown;
  }

  private _onLiveChanged(_: LiveVisionModels, id: string): void {
    const model = this._model;
    if (!model || modelIdOf(model.data) !== id) {
      return;
    }
    // The model arrived (widget state restored from the kernel) or went away (kernel restarted):
    // switch between the live widget and the saved output.
    const alive = this._live.get(id) !== undefined;
    if (alive !== (this._shown?.kind === 'live')) {
      this._shown = null;
      void this.renderModel(model);
    }
  }
}
