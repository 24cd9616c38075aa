/**
 * Costly figures shown as a bitmap drawn once. A figure with filter effects (noise, blur,
 * convolution) costs the browser up to a second each time it rasterises the SVG, and an `<img>`
 * of an SVG is rasterised again on every repaint around it (a send, a scroll): frame gaps of
 * 0.3-0.6 s in ui-tests/bench/figure-repaint.spec.ts. The figure server draws it (`render-figure`,
 * in its worker pool, off the page's main thread) and the page shows that PNG; only when the
 * server cannot is it drawn once here, into a canvas (one long task of 0.3-1.2 s). The SVG stays
 * the source: the larger view, downloads and the stored call use it.
 */
import { FigureClient, type FigureServerRequest } from '../chat/figure-client';
import { svgDataUri } from '../tools/svg';
import { MAX_FIGURE_PIXEL_RATIO } from '../tools/wire';

/** Whether a figure is costly to draw: it uses filter effects. */
export function isCostlyFigure(svg: string): boolean {
  return /<(?:[\w-]+:)?filter[\s>/]/.test(svg);
}

/** The largest size a figure is shown at in the chat (CSS pixels): its box is capped there. */
const MAX_SHOWN = { width: 1280, height: 480 };

/** Bitmaps kept for figures drawn again (a re-rendered card, a reopened chat). */
const MAX_KEPT = 32;

/** A figure's bitmap, and the figure's own width (CSS pixels) it was drawn from. */
export interface FigureBitmap {
  readonly url: string;
  readonly width: number;
  /** The size to lay the bitmap out at (CSS pixels): the figure's, within the chat's caps. */
  readonly shown: { readonly width: number; readonly height: number };
  /** Who drew it: the figure server, or this page (when the server could not). */
  readonly drawnBy: 'server' | 'page';
}

const kept = new Map<string, Promise<FigureBitmap>>();

/**
 * The address of a PNG of `svg` at the size the chat can show it (its own size at most, times the
 * device's pixel ratio); drawn once per figure and kept for the next card showing it.
 */
export function figureBitmap(svg: string, server?: FigureServer): Promise<FigureBitmap> {
  const known = kept.get(svg);
  if (known) {
    // Most recently used last, so the oldest goes first.
    kept.delete(svg);
    kept.set(svg, known);
    return known;
  }
  const made = server ? drawOnServer(svg, server).catch(() => draw(svg)) : draw(svg);
  made.catch(() => kept.delete(svg));
  kept.set(svg, made);
  if (kept.size > MAX_KEPT) {
    const [oldest, bitmap] = kept.entries().next().value as [string, Promise<FigureBitmap>];
    kept.delete(oldest);
    // Revoked a moment later: an element that shows it has its decoded pixels by then.
    void bitmap.then(({ url }) => setTimeout(() => URL.revokeObjectURL(url), 10_000));
  }
  return made;
}

function pixelRatio(): number {
  return Math.min(window.devicePixelRatio || 1, MAX_FIGURE_PIXEL_RATIO);
}

/**
 * The figure server, and the figure's size as the policy measured it (decoding the SVG in the
 * page to measure it would cost the page what the server is asked to spare it).
 */
export interface FigureServer {
  readonly request: FigureServerRequest;
  readonly width: number;
  readonly height: number;
}

/** The figure server's PNG of `svg`, at the size the chat shows it times the pixel ratio. */
async function drawOnServer(svg: string, server: FigureServer): Promise<FigureBitmap> {
  const { request, width, height } = server;
  const fit = Math.min(1, MAX_SHOWN.width / width, MAX_SHOWN.height / height);
  const shown = {
    width: Math.max(1, Math.round(width * fit)),
    height: Math.max(1, Math.round(height * fit))
  };
  const png = await new FigureClient(request).call('render-figure', {
    svg,
    width: shown.width,
    ratio: pixelRatio()
  });
  const blob = new Blob([png as Uint8Array<ArrayBuffer>], { type: 'image/png' });
  return { url: URL.createObjectURL(blob), width, shown, drawnBy: 'server' };
}

/** Most pixels the page draws a figure into when the figure server cannot. */
const PAGE_MAX_PIXELS = 6_000_000;

/**
 * Most pixels the larger view has the page draw when the server cannot: drawing the heaviest
 * figure at 6 M px held the page's main thread for 3.9 s; at this size it is about as long as
 * the chat's own drawing of it.
 */
const VIEW_PAGE_MAX_PIXELS = 1_000_000;

/** Draw `svg` once into a canvas, `scale` device pixels per figure pixel (bounded), as a PNG. */
async function drawInPage(
  svg: string,
  scale: (width: number, height: number) => number
): Promise<{ blob: Blob; width: number; height: number; pixelWidth: number }> {
  const source = new Image();
  source.src = svgDataUri(svg);
  await source.decode();
  const width = source.naturalWidth || 300;
  const height = source.naturalHeight || 150;
  const factor = Math.min(scale(width, height), Math.sqrt(PAGE_MAX_PIXELS / (width * height)));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * factor));
  canvas.height = Math.max(1, Math.round(height * factor));
  const context = canvas.getContext('2d');
  if (!context) {
    throw new Error('no 2D canvas');
  }
  // The one raster of this figure.
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  const blob = await new Promise<Blob | null>(resolve => canvas.toBlob(resolve, 'image/png'));
  if (!blob) {
    throw new Error('the figure could not be encoded');
  }
  return { blob, width, height, pixelWidth: canvas.width };
}

async function draw(svg: string): Promise<FigureBitmap> {
  let shown = { width: 0, height: 0 };
  const { blob, width } = await drawInPage(svg, (width, height) => {
    const fit = Math.min(1, MAX_SHOWN.width / width, MAX_SHOWN.height / height);
    shown = { width: Math.round(width * fit), height: Math.round(height * fit) };
    return fit * pixelRatio();
  });
  return { url: URL.createObjectURL(blob), width, shown, drawnBy: 'page' };
}

/** A PNG of a figure for the larger view, and how many of its pixels span one figure pixel. */
export interface ScaledBitmap {
  readonly blob: Blob;
  readonly scale: number;
  readonly drawnBy: 'server' | 'page';
}

/**
 * A PNG of `svg` at `scale` device pixels per figure pixel, for the larger view at any zoom: from
 * the figure server (which bounds the ratio and the pixel count: the answer may be smaller than
 * asked, `scale` says what it is), or drawn in the page, within {@link VIEW_PAGE_MAX_PIXELS},
 * when the server cannot.
 */
export async function scaledFigureBitmap(
  svg: string,
  server: FigureServer,
  scale: number,
  signal?: AbortSignal
): Promise<ScaledBitmap> {
  const { request, width } = server;
  try {
    // The server draws `width` CSS pixels (at most the figure's own) at `ratio`.
    const png = await new FigureClient(request).call(
      'render-figure',
      {
        svg,
        width: scale >= 1 ? width : Math.max(1, Math.round(width * scale)),
        ratio: scale >= 1 ? Math.min(MAX_FIGURE_PIXEL_RATIO, scale) : 1
      },
      signal
    );
    const bytes = png as Uint8Array<ArrayBuffer>;
    const blob = new Blob([bytes], { type: 'image/png' });
    // The PNG's width, from its IHDR chunk (bytes 16–19, big-endian), without decoding it.
    const pixels = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(16);
    return { blob, scale: pixels / width, drawnBy: 'server' };
  } catch (error) {
    if (signal?.aborted) {
      throw error;
    }
    const drawn = await drawInPage(svg, (width, height) =>
      Math.min(scale, Math.sqrt(VIEW_PAGE_MAX_PIXELS / (width * height)))
    );
    return { blob: drawn.blob, scale: drawn.pixelWidth / drawn.width, drawnBy: 'page' };
  }
}
