/**
 * `present_svg` cards: a completed call becomes its figure, an `<img>` of a data URI (scripts off,
 * no external loads), fitted and height-capped, with `alt` as a visible caption. A stored figure
 * is checked again before it is shown; one that fails is an ordinary failed card with the reason.
 */
import { checkSvgPolicy, figureFromCall, svgDataUri } from '../tools/svg';
import { insertButton, renderToolCard, type CardRenderer } from './card-renderers';

/** The figure element for an SVG and its caption. */
export function renderFigure(
  svg: string,
  alt: string,
  openLarger: (src: string, title: string) => void,
  title: string
): HTMLElement {
  const figure = document.createElement('figure');
  figure.className = 'jp-FigureChat-figure';
  const img = document.createElement('img');
  img.className = 'jp-FigureChat-figure-image';
  img.alt = alt;
  img.loading = 'lazy';
  img.decoding = 'async';
  img.src = svgDataUri(svg);
  img.title = title;
  img.addEventListener('click', () => openLarger(img.src, alt));
  const caption = document.createElement('figcaption');
  caption.className = 'jp-FigureChat-figure-caption';
  caption.textContent = alt;
  figure.append(img, caption);
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
    context.trans.__('Click to open larger')
  );
  element.dataset.callId = card.call.id;
  const insert = insertButton(context, card.call.id);
  if (insert) {
    element.append(insert);
  }
  return element;
};
