/**
 * The figure viewer: a figure or view in a main-area tab, fitted to the width, with zoom (wheel and
 * buttons), pan (drag), 1:1, and downloads (PNG and SVG for figures, PNG for views). An SVG stays
 * vector at every zoom, because the browser draws it again at each size; a PNG view is enlarged
 * smoothly, and as a crisp pixel grid only from {@link PIXEL_GRID_ZOOM} on, where single pixels
 * are what a person is looking for.
 *
 * A costly figure (filter effects) is the exception: the browser would rasterise its SVG again on
 * every repaint (0.1–0.6 s each while zooming or scrolling), so the view shows the figure server's
 * PNG at its zoom (./view-raster). The SVG stays the source of downloads.
 */
import { MainAreaWidget, Toolbar, ToolbarButton } from '@jupyterlab/apputils';
import { nullTranslator, type TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { isCostlyFigure, type FigureServer } from './figure-raster';
import { ViewRaster, type RasterSource } from './view-raster';

/** Zoom range and step (a factor per button press or wheel notch). */
export const MIN_ZOOM = 0.05;
export const MAX_ZOOM = 32;
const ZOOM_STEP = 1.25;

/** From this zoom on, a PNG view shows its pixels as a crisp grid instead of smoothing them. */
export const PIXEL_GRID_ZOOM = 4;

const SVG_PREFIX = 'data:image/svg+xml,';

/** What the status line says about who drew a costly figure's raster. */
const RASTER_STATUS: Readonly<Record<RasterSource, string>> = {
  server: 'drawn by the figure server (filter effects)',
  page: 'drawn once in the page (filter effects)',
  svg: 'vector'
};

let opened = 0;

/** A file name from a title: letters, digits and dashes. */
function fileStem(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'figure'
  );
}

function download(href: string, name: string): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}

/** The content of a viewer tab. */
export class FigureViewer extends Widget {
  readonly image: HTMLImageElement;
  private readonly _status: HTMLElement;
  private _zoom = 1;
  private _fitted = true;
  private _drag: { x: number; y: number; left: number; top: number } | null = null;
  /** The figure server's raster, when this is a costly figure it draws. */
  private readonly _raster: ViewRaster | null;

  constructor(
    readonly src: string,
    readonly caption: string,
    server?: FigureServer
  ) {
    super();
    this.addClass('jp-FigureChat-viewer');
    this.node.tabIndex = 0;
    this.image = document.createElement('img');
    this.image.className = 'jp-FigureChat-viewer-image';
    if (this.isSvg) {
      this.image.classList.add('jp-FigureChat-figure-image-mod-svg');
    }
    this.image.alt = caption;
    this.image.draggable = false;
    const svg = this.svg;
    if (server && svg !== null && isCostlyFigure(svg)) {
      this.addClass('jp-FigureChat-viewer-mod-raster');
      this._raster = new ViewRaster(this.image, this.node, svg, server, () => this._showStatus());
    } else {
      this._raster = null;
      this.image.src = src;
    }
    this._status = document.createElement('div');
    this._status.className = 'jp-FigureChat-viewer-status';
    this._status.setAttribute('aria-live', 'polite');
    const stage = document.createElement('div');
    stage.className = 'jp-FigureChat-viewer-stage';
    stage.append(this.image);
    this.node.append(stage, this._status);
    this.image.addEventListener('load', () => {
      this._raster?.update(this._wanted);
      if (this._fitted) {
        this.fit();
      }
    });
  }

  /** Whether the view shows the figure server's raster rather than the SVG. */
  get isRaster(): boolean {
    return this._raster !== null;
  }

  /** The picture's width in its own pixels: the figure's for a raster, else the image's. */
  private get _naturalWidth(): number {
    return this._raster ? this._raster.server.width : this.image.naturalWidth;
  }

  /** Whether this is a figure (SVG) rather than a view (PNG). */
  get isSvg(): boolean {
    return this.src.startsWith(SVG_PREFIX);
  }

  /** The current zoom (1 = one image pixel per CSS pixel). */
  get zoom(): number {
    return this._zoom;
  }

  /** The figure's SVG source, for figures. */
  get svg(): string | null {
    return this.isSvg ? decodeURIComponent(this.src.slice(SVG_PREFIX.length)) : null;
  }

  /** Zoom so the picture fills the width of the tab. */
  fit(): void {
    const width = this._naturalWidth;
    const available = this.node.clientWidth - 32;
    if (width > 0 && available > 0) {
      this._set(available / width, true);
    }
  }

  /** One image pixel per CSS pixel. */
  actualSize(): void {
    this._set(1, false);
  }

  zoomBy(factor: number): void {
    this._set(this._zoom * factor, false);
  }

  /** Download the picture as a PNG (a figure is drawn at twice its size, so it stays sharp). */
  async downloadPng(): Promise<void> {
    const stem = fileStem(this.caption);
    if (!this.isSvg) {
      download(this.src, `${stem}.png`);
      return;
    }
    const img = new Image();
    img.src = this.src;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, (img.naturalWidth || 300) * 2);
    canvas.height = Math.max(1, (img.naturalHeight || 150) * 2);
    canvas.getContext('2d')?.drawImage(img, 0, 0, canvas.width, canvas.height);
    download(canvas.toDataURL('image/png'), `${stem}.png`);
  }

  /** Download a figure's SVG source, exactly as checked. */
  downloadSvg(): void {
    const svg = this.svg;
    if (svg === null) {
      return;
    }
    const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    download(url, `${fileStem(this.caption)}.svg`);
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  handleEvent(event: Event): void {
    switch (event.type) {
      case 'wheel': {
        const wheel = event as WheelEvent;
        wheel.preventDefault();
        this.zoomBy(wheel.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP);
        break;
      }
      case 'pointerdown': {
        const pointer = event as PointerEvent;
        this._drag = {
          x: pointer.clientX,
          y: pointer.clientY,
          left: this.node.scrollLeft,
          top: this.node.scrollTop
        };
        this.node.setPointerCapture(pointer.pointerId);
        this.addClass('jp-mod-panning');
        break;
      }
      case 'pointermove': {
        const pointer = event as PointerEvent;
        if (this._drag) {
          this.node.scrollLeft = this._drag.left - (pointer.clientX - this._drag.x);
          this.node.scrollTop = this._drag.top - (pointer.clientY - this._drag.y);
        }
        break;
      }
      case 'pointerup':
      case 'pointercancel':
        this._drag = null;
        this.removeClass('jp-mod-panning');
        break;
    }
  }

  protected onAfterAttach(): void {
    this.node.addEventListener('wheel', this, { passive: false });
    this.node.addEventListener('pointerdown', this);
    this.node.addEventListener('pointermove', this);
    this.node.addEventListener('pointerup', this);
    this.node.addEventListener('pointercancel', this);
    if (this._fitted) {
      this.fit();
    }
  }

  protected onBeforeDetach(): void {
    this.node.removeEventListener('wheel', this);
    this.node.removeEventListener('pointerdown', this);
    this.node.removeEventListener('pointermove', this);
    this.node.removeEventListener('pointerup', this);
    this.node.removeEventListener('pointercancel', this);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._raster?.dispose();
    super.dispose();
  }

  protected onResize(): void {
    if (this._fitted) {
      this.fit();
    }
  }

  private _set(zoom: number, fitted: boolean): void {
    this._zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom));
    this._fitted = fitted;
    const width = this._naturalWidth;
    if (width > 0) {
      this.image.style.width = `${Math.round(width * this._zoom)}px`;
      this.image.style.height = 'auto';
    }
    const grid = !this.isSvg && this._zoom >= PIXEL_GRID_ZOOM;
    this.image.classList.toggle('jp-mod-pixelGrid', grid);
    this.node.dataset.zoom = this._zoom.toFixed(3);
    this._showStatus();
    this._raster?.update(this._wanted);
  }

  private _showStatus(): void {
    const percent = `${Math.round(this._zoom * 100)}%`;
    this._status.textContent = this._raster
      ? `${percent} · ${RASTER_STATUS[this._raster.source]}`
      : this.isSvg
        ? `${percent} · vector`
        : `${percent} · ${this._zoom >= PIXEL_GRID_ZOOM ? 'pixel grid' : 'smoothed'}`;
  }

  /** The device pixels per figure pixel the current zoom shows. */
  private get _wanted(): number {
    return this._zoom * (window.devicePixelRatio || 1);
  }
}

function button(label: string, tooltip: string, onClick: () => void): ToolbarButton {
  return new ToolbarButton({ label, tooltip, onClick, className: 'jp-FigureChat-viewer-button' });
}

/** A main-area tab with the viewer and its toolbar. */
export function createLargerView(
  src: string,
  title: string,
  trans: TranslationBundle = nullTranslator.load('jupyterlab_figure_chat'),
  /** The figure server, which draws a costly figure for the view at each zoom. */
  server?: FigureServer
): MainAreaWidget<FigureViewer> {
  const content = new FigureViewer(src, title, server);
  const toolbar = new Toolbar();
  const widget = new MainAreaWidget({ content, toolbar });
  toolbar.addItem(
    'fit',
    button(trans.__('Fit'), trans.__('Fit to width'), () => content.fit())
  );
  toolbar.addItem(
    'zoom-out',
    button('−', trans.__('Zoom out'), () => content.zoomBy(1 / ZOOM_STEP))
  );
  toolbar.addItem(
    'zoom-in',
    button('+', trans.__('Zoom in'), () => content.zoomBy(ZOOM_STEP))
  );
  toolbar.addItem(
    'actual',
    button('1:1', trans.__('Actual size'), () => content.actualSize())
  );
  toolbar.addItem('spacer', Toolbar.createSpacerItem());
  toolbar.addItem(
    'png',
    button(trans.__('PNG'), trans.__('Download as PNG'), () => void content.downloadPng())
  );
  if (content.isSvg) {
    toolbar.addItem(
      'svg',
      button(trans.__('SVG'), trans.__('Download the SVG'), () => content.downloadSvg())
    );
  }
  opened += 1;
  widget.id = `jp-figure-chat-larger-${opened}`;
  widget.addClass('jp-FigureChat-viewerPanel');
  widget.title.label = title.length > 40 ? `${title.slice(0, 40)}…` : title;
  widget.title.caption = title;
  widget.title.closable = true;
  return widget;
}
