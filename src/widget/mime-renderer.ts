/**
 * The renderer of `application/vnd.figure-chat.figure+json` outputs (SPEC 10): a figure's SVG is
 * checked again by the figure server and shown as a data-URI `<img>`; a vision view is rendered
 * again from the picture, the record and the view spec. Nothing in the bundle is executed, so an
 * untrusted notebook renders exactly like a trusted one. When the picture is missing or changed,
 * or the figure server cannot help, the stored `image/png` is shown with a notice saying why.
 */
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { FigureClient } from '../chat/figure-client';
import type { PictureRequest } from '../chat/tools/pictures';
import { FIGURE_MIME, parseOutputBundle, type VisionBundle } from '../tools/bundle';
import { viewSpecOf } from '../tools/pin';
import { checkSvgPolicy, svgDataUri } from '../tools/svg';

/** Lower ranks win: below `image/svg+xml` (80) and `image/png` (90), so the bundle is chosen. */
export const FIGURE_OUTPUT_RANK = 20;

/** What the renderer needs from its host. */
export interface FigureOutputServices {
  readonly trans: TranslationBundle;
  /** POST to a figure-server route. */
  request<T>(route: string, body: unknown, signal?: AbortSignal): Promise<T>;
  /** How the figure server finds a picture (with the bytes of a `cell:` picture). Throws if gone. */
  picture(address: string): PictureRequest;
  /** Open a picture in the viewer. */
  openViewer(src: string, title: string): void;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value) && value.every(part => typeof part === 'string')) {
    return value.join('');
  }
  return undefined;
}

/** The stored PNG as a data URI, if the output has one that is plain base64. */
function storedPng(data: Record<string, unknown>): string | undefined {
  const png = text(data['image/png'])?.replace(/\s+/g, '');
  return png && /^[A-Za-z0-9+/]+=*$/.test(png) ? `data:image/png;base64,${png}` : undefined;
}

function figureElement(
  src: string,
  alt: string,
  services: FigureOutputServices,
  notice?: string
): HTMLElement {
  const figure = document.createElement('figure');
  figure.className = 'jp-FigureChat-figure jp-FigureChat-output';
  if (notice) {
    const note = document.createElement('div');
    note.className = 'jp-FigureChat-output-notice';
    note.setAttribute('role', 'status');
    note.textContent = notice;
    figure.append(note);
  }
  const img = document.createElement('img');
  img.className = 'jp-FigureChat-figure-image';
  img.alt = alt;
  img.src = src;
  img.title = services.trans.__('Click to open in the viewer');
  img.addEventListener('click', () => services.openViewer(img.src, alt));
  const caption = document.createElement('figcaption');
  caption.className = 'jp-FigureChat-figure-caption';
  caption.textContent = alt;
  figure.append(img, caption);
  return figure;
}

/** A notice with the stored PNG under it, or the notice alone when there is no PNG. */
function fallback(
  data: Record<string, unknown>,
  alt: string,
  notice: string,
  services: FigureOutputServices
): HTMLElement {
  const png = storedPng(data);
  if (png) {
    const element = figureElement(png, alt, services, notice);
    element.classList.add('jp-FigureChat-output-mod-fallback');
    return element;
  }
  const element = document.createElement('div');
  element.className = 'jp-FigureChat-output-notice';
  element.setAttribute('role', 'status');
  element.textContent = notice;
  return element;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function renderVision(
  bundle: VisionBundle,
  data: Record<string, unknown>,
  services: FigureOutputServices,
  signal: AbortSignal
): Promise<HTMLElement> {
  const { trans } = services;
  const alt = text(data['text/plain']) ?? bundle.record.image;
  const spec = viewSpecOf(bundle.view);
  if (!spec) {
    return fallback(
      data,
      alt,
      trans.__('This view names nothing the figure server can draw; showing the stored picture.'),
      services
    );
  }
  const address = bundle.picture.address;
  try {
    const answer = await new FigureClient(services.request).call(
      'render',
      {
        ...services.picture(address),
        expectSha256: bundle.picture.sha256,
        views: [spec],
        record: bundle.record
      },
      signal
    );
    const view = answer.views[0];
    if (!view) {
      throw new Error('the figure server drew no view');
    }
    return figureElement(`data:image/png;base64,${view.png}`, alt, services);
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    const status = (error as { status?: unknown }).status;
    const notice =
      status === 409
        ? trans.__(
            'The picture %1 has changed since this view was made; showing the stored picture.',
            address
          )
        : status === 404 || (error instanceof Error && error.name === 'PictureNotFoundError')
          ? trans.__('The picture %1 is gone; showing the stored picture.', address)
          : trans.__(
              'This view could not be drawn again (%1); showing the stored picture.',
              reason(error)
            );
    return fallback(data, alt, notice, services);
  }
}

/**
 * Render an output's MIME data (the bundle and its siblings) to an element. Never throws for bad
 * data: an unreadable bundle is a notice.
 */
export async function renderFigureOutput(
  data: Record<string, unknown>,
  services: FigureOutputServices,
  signal: AbortSignal
): Promise<HTMLElement> {
  const { trans } = services;
  const parsed = parseOutputBundle(data[FIGURE_MIME]);
  if (!parsed.ok) {
    return fallback(data, text(data['text/plain']) ?? '', parsed.error, services);
  }
  const bundle = parsed.value;
  if (bundle.kind === 'vision') {
    return renderVision(bundle, data, services, signal);
  }
  const svg = text(data['image/svg+xml']);
  if (svg === undefined) {
    return fallback(
      data,
      bundle.alt,
      trans.__('This figure has no SVG; showing the stored picture.'),
      services
    );
  }
  const local = checkSvgPolicy(svg);
  if (!local.ok) {
    return fallback(
      data,
      bundle.alt,
      trans.__('Figure refused: %1. Showing the stored picture.', local.error.message),
      services
    );
  }
  try {
    const answer = await new FigureClient(services.request).call('check-svg', { svg }, signal);
    if (!answer.ok) {
      return fallback(
        data,
        bundle.alt,
        trans.__('Figure refused: %1. Showing the stored picture.', answer.error.message),
        services
      );
    }
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    return fallback(
      data,
      bundle.alt,
      trans.__('The figure could not be checked (%1); showing the stored picture.', reason(error)),
      services
    );
  }
  const element = figureElement(svgDataUri(svg), bundle.alt, services);
  element.classList.add('jp-FigureChat-output-mod-svg');
  element.querySelector('img')?.classList.add('jp-FigureChat-figure-image-mod-svg');
  return element;
}

/** The widget JupyterLab puts in an output area for a Figure Chat bundle. */
export class FigureOutputRenderer extends Widget implements IRenderMime.IRenderer {
  private _abort: AbortController | null = null;

  constructor(private readonly _services: FigureOutputServices) {
    super();
    this.addClass('jp-FigureChat-outputRenderer');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._abort?.abort();
    const abort = new AbortController();
    this._abort = abort;
    const data = model.data as Record<string, unknown>;
    try {
      const element = await renderFigureOutput(data, this._services, abort.signal);
      if (!this.isDisposed && !abort.signal.aborted) {
        this.node.replaceChildren(element);
      }
    } catch (error) {
      if (!abort.signal.aborted) {
        throw error;
      }
    }
  }

  dispose(): void {
    this._abort?.abort();
    super.dispose();
  }
}

/** The renderer factory: safe (nothing runs), so untrusted notebooks render the same. */
export function figureOutputRendererFactory(
  services: FigureOutputServices
): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [FIGURE_MIME],
    defaultRank: FIGURE_OUTPUT_RANK,
    createRenderer: () => new FigureOutputRenderer(services)
  };
}
