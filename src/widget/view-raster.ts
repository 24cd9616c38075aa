/**
 * The larger view's raster of a costly figure (filter effects). The browser would rasterise the
 * SVG again on every repaint of the view (0.1–0.6 s each while zooming or scrolling), so the view
 * shows the figure server's PNG at its zoom times the device's pixel ratio, and asks for a finer
 * one, debounced, once zoomed past what the shown one covers. The previous picture stays until
 * the next is decoded, so the view is never blank; the SVG stays the source of downloads.
 */
import type { IDisposable } from '@lumino/disposable';

import { figureBitmap, scaledFigureBitmap, type FigureServer } from './figure-raster';

/** How long zooming pauses before a finer raster is asked for (ms). */
const RASTER_DEBOUNCE_MS = 200;

/** A raster is fine enough while it has this share of the pixels the zoom shows. */
const RASTER_SLACK = 0.9;

/** Who drew the picture shown: the figure server, the page, or nobody (the SVG itself). */
export type RasterSource = 'server' | 'page' | 'svg';

/** Keeps a viewer's `<img>` showing a raster fine enough for its zoom. */
export class ViewRaster implements IDisposable {
  /** Device pixels per figure pixel of the raster shown, and the most the server would draw. */
  private _covered = 0;
  private _ceiling = Infinity;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _abort: AbortController | null = null;
  /** The object URL made here (the chat's kept bitmap is not this view's to revoke). */
  private _ownUrl: string | null = null;
  private _disposed = false;

  /**
   * @param image - the viewer's picture element.
   * @param host - the element whose `data-raster-pending` / `data-raster-scale` say what is shown.
   * @param shown - called when another picture is shown, to update the status line.
   */
  constructor(
    private readonly _image: HTMLImageElement,
    private readonly _host: HTMLElement,
    private readonly _svg: string,
    readonly server: FigureServer,
    private readonly _shown: () => void
  ) {
    // The chat's bitmap first (usually kept already), so the view is never blank.
    figureBitmap(_svg, server).then(
      bitmap => {
        if (!this._disposed && this._covered === 0 && !_image.src) {
          this._show(bitmap.url, bitmap.drawnBy);
        }
      },
      () => this.update(0, 0)
    );
    _image.addEventListener('load', () => {
      this._covered = _image.naturalWidth / server.width;
    });
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** Who drew the picture shown. */
  get source(): RasterSource {
    const drawnBy = this._image.dataset.drawnBy;
    return drawnBy === 'page' || drawnBy === 'svg' ? drawnBy : 'server';
  }

  /** Ask for a finer raster once zooming pauses, if the shown one covers less than `wanted`. */
  update(wanted: number, delay = RASTER_DEBOUNCE_MS): void {
    if (
      this._disposed ||
      (this._covered > 0 && this._covered >= wanted * RASTER_SLACK) ||
      this._covered >= this._ceiling * RASTER_SLACK
    ) {
      return;
    }
    clearTimeout(this._timer);
    // Pending from now until the finer raster shows, so a reader (or a test) can wait for it.
    this._host.dataset.rasterPending = 'true';
    this._timer = setTimeout(() => {
      this._timer = undefined;
      void this._fetch(Math.max(wanted, 0.25));
    }, delay);
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    clearTimeout(this._timer);
    this._abort?.abort();
    if (this._ownUrl) {
      URL.revokeObjectURL(this._ownUrl);
    }
  }

  private _show(url: string, drawnBy: RasterSource): void {
    this._image.dataset.drawnBy = drawnBy;
    this._image.src = url;
    this._shown();
  }

  /** Fetch a raster at `scale`, decode it, then swap it in: the old one shows until then. */
  private async _fetch(scale: number): Promise<void> {
    this._abort?.abort();
    const abort = new AbortController();
    this._abort = abort;
    try {
      const bitmap = await scaledFigureBitmap(this._svg, this.server, scale, abort.signal);
      if (bitmap.scale < scale * RASTER_SLACK || bitmap.drawnBy === 'page') {
        // The server's pixel limit: asking again for more would get the same. Drawn by the
        // page (the server could not): once is the long task the chat also takes, not one per
        // zoom step.
        this._ceiling = bitmap.scale;
      }
      const url = URL.createObjectURL(bitmap.blob);
      const next = new Image();
      next.src = url;
      await next.decode();
      if (this._disposed || abort.signal.aborted) {
        URL.revokeObjectURL(url);
        return;
      }
      const old = this._ownUrl;
      this._ownUrl = url;
      this._covered = bitmap.scale;
      this._host.dataset.rasterScale = bitmap.scale.toFixed(3);
      this._show(url, bitmap.drawnBy);
      if (old) {
        // After the swap has painted: the element holds the new picture by then.
        setTimeout(() => URL.revokeObjectURL(old), 1000);
      }
    } catch {
      if (abort.signal.aborted || this._disposed) {
        return;
      }
      // Neither the server nor the page could draw it at this size: keep the picture shown, or
      // show the SVG itself when there is none, and ask no more.
      this._ceiling = 0;
      if (!this._image.src) {
        this._show(`data:image/svg+xml,${encodeURIComponent(this._svg)}`, 'svg');
      }
    } finally {
      if (this._abort === abort) {
        this._abort = null;
        if (this._timer === undefined) {
          delete this._host.dataset.rasterPending;
        }
      }
    }
  }
}
