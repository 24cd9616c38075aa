/**
 * `present_svg` cards: a completed call becomes its figure, an `<img>` of a data URI (scripts off,
 * no external loads), fitted and height-capped, with `alt` as a visible caption. A stored figure
 * is checked again before it is shown; one that fails is an ordinary failed card with the reason.
 */
import { checkSvgPolicy, figureFromCall, svgDataUri } from '../tools/svg';
import { insertButton, renderToolCard, type CardRenderer } from './card-renderers';
import { figureBitmap, isCostlyFigure, type FigureServer } from './figure-raster';

/** Below this drawn scale, a figure in the sidebar says it can be opened larger. */
export const SMALL_SCALE = 0.6;

/**
 * Show a hint under a picture while it is drawn below {@link SMALL_SCALE} of its size (the sidebar
 * is narrow): labels at that scale are hard to read, and a click opens the viewer.
 */
export function watchScale(
  figure: HTMLElement,
  img: HTMLImageElement,
  action: string,
  /** The picture's own width, when it was drawn at another (a view drawn for display). */
  width?: number
): void {
  const hint = document.createElement('div');
  hint.className = 'jp-FigureChat-figure-hint';
  hint.hidden = true;
  figure.append(hint);
  let drawn = 0;
  // Read once, when the picture has loaded: `naturalWidth` of an SVG picture is computed on each
  // read (its document sized again), which on every resize of 60 pictures cost ~100 ms of the
  // reopen benchmark's main thread.
  let natural = width ?? 0;
  const update = (): void => {
    if (!natural || !drawn) {
      return;
    }
    const scale = drawn / natural;
    const text = scale.toFixed(2);
    if (figure.dataset.scale === text) {
      return;
    }
    figure.dataset.scale = text;
    hint.hidden = scale >= SMALL_SCALE;
    hint.textContent = `${Math.round(scale * 100)}% · ${action}`;
  };
  if (typeof ResizeObserver === 'undefined') {
    img.addEventListener('load', () => {
      natural = width ?? img.naturalWidth;
      drawn = img.clientWidth;
      update();
    });
    return;
  }
  // The drawn width comes from the observer's entries, measured in the browser's own layout:
  // reading `clientWidth` on each image's load or resize forced a layout of the whole chat per
  // picture (60 when the benchmark conversation reopens). A picture that loads at the size it was
  // laid out at gets no resize: its load updates too.
  img.addEventListener('load', () => {
    natural = width ?? img.naturalWidth;
    update();
  });
  new ResizeObserver(entries => {
    drawn = entries[entries.length - 1].contentRect.width;
    update();
  }).observe(img);
}

/** The figure element for an SVG and its caption. */
export function renderFigure(
  svg: string,
  alt: string,
  openLarger: (src: string, title: string, server?: FigureServer) => void,
  title: string,
  /** The figure server, which draws costly figures; without it they are drawn in the page. */
  server?: FigureServer
): HTMLElement {
  const figure = document.createElement('figure');
  figure.className = 'jp-FigureChat-figure';
  const img = document.createElement('img');
  img.className = 'jp-FigureChat-figure-image jp-FigureChat-figure-image-mod-svg';
  img.alt = alt;
  img.loading = 'lazy';
  img.decoding = 'async';
  img.title = title;
  const source = svgDataUri(svg);
  // The larger view keeps the SVG as its source; the server draws a costly one there too.
  img.addEventListener('click', () => openLarger(source, alt, server));
  const caption = document.createElement('figcaption');
  caption.className = 'jp-FigureChat-figure-caption';
  caption.textContent = alt;
  figure.append(img, caption);
  if (isCostlyFigure(svg)) {
    // Drawn once into a bitmap (./figure-raster); the scale is the SVG's, not the bitmap's.
    figure.classList.add('jp-FigureChat-figure-mod-bitmap');
    figureBitmap(svg, server).then(
      bitmap => {
        figure.dataset.drawnBy = bitmap.drawnBy;
        watchScale(figure, img, title, bitmap.width);
        // Laid out at the figure's size, not the bitmap's (which has the device's pixel ratio).
        img.width = bitmap.shown.width;
        img.height = bitmap.shown.height;
        img.src = bitmap.url;
      },
      () => {
        watchScale(figure, img, title);
        img.src = source;
      }
    );
  } else {
    img.src = source;
    watchScale(figure, img, title);
  }
  return figure;
}

/** The card renderer for `present_svg`. */
export const presentSvgCard: CardRenderer = (card, context) => {
  if (card.state !== 'completed') {
    return null;
  }
  const figure = figureFromCall(card.call);
  if (!figure) {
    return renderToolCard(card, context, {
      state: 'failed',
      result: context.trans.__('Stored figure refused: the call has no svg and alt text.')
    });
  }
  const check = checkSvgPolicy(figure.svg);
  if (!check.ok) {
    return renderToolCard(card, context, {
      state: 'failed',
      result: context.trans.__('Stored figure refused: %1', check.error.message)
    });
  }
  const element = renderFigure(
    figure.svg,
    figure.alt,
    context.openLarger,
    context.trans.__('Click to open larger'),
    {
      request: (route, body, signal) => context.request(route, body, signal),
      width: check.value.width,
      height: check.value.height
    }
  );
  element.dataset.callId = card.call.id;
  const insert = insertButton(context, card.call.id);
  if (insert) {
    element.append(insert);
  }
  return element;
};
