/**
 * Vision cards: the ordinary card, then the call's views inline in the figure style. The card only
 * reads the views from the session's {@link VisionViews} (which folds the transcript and renders
 * replayed views); a changed or missing picture shows a notice and the text record instead of a
 * wrong view, and a call with no views is simply its card.
 */
import { Notification } from '@jupyterlab/apputils';

import type { ToolImage } from '../tools/registry';
import type { VisionRecord } from '../tools/vision';
import {
  insertButton,
  renderToolCard,
  type CardRenderContext,
  type CardRenderer
} from './card-renderers';
import { watchScale } from './figure';
import { renderViewCaption } from './view-caption';

function viewFigure(
  view: ToolImage,
  record: VisionRecord,
  index: number,
  callId: string,
  context: CardRenderContext
): HTMLElement {
  const figure = document.createElement('figure');
  figure.className = 'jp-FigureChat-figure jp-FigureChat-visionView';
  const img = document.createElement('img');
  img.className = 'jp-FigureChat-figure-image';
  img.src = `data:image/png;base64,${view.png}`;
  // Laid out at the view's own size (fitted to the chat), whatever size it was drawn at.
  const size = view.shrunkFrom ?? view;
  img.width = size.width;
  img.height = size.height;
  img.title = context.trans.__('Click to open full size');
  img.addEventListener('click', () => {
    if (!view.shrunkFrom) {
      context.openLarger(img.src, view.caption);
      return;
    }
    // Drawn for the chat's width: the viewer shows the full view, drawn now (once a session).
    context.views.full(callId).then(
      full => context.openLarger(`data:image/png;base64,${full[index].png}`, view.caption),
      (error: unknown) =>
        Notification.error(
          context.trans.__(
            'Could not draw the full view: %1',
            error instanceof Error ? error.message : String(error)
          )
        )
    );
  });
  img.alt = renderViewCaption(view.caption, record).textContent ?? view.caption;
  // What the model read (address, region, sizes) stays available, folded away.
  const details = document.createElement('details');
  details.className = 'jp-FigureChat-viewDetails';
  const summary = document.createElement('summary');
  summary.textContent = context.trans.__('Details');
  const raw = document.createElement('code');
  raw.textContent = view.caption;
  details.append(summary, raw);
  figure.append(img, renderViewCaption(view.caption, record), details);
  watchScale(figure, img, context.trans.__('click to open larger'), view.shrunkFrom?.width);
  const insert = insertButton(context, callId, index);
  if (insert) {
    figure.append(insert);
  }
  return figure;
}

/** The card renderer for the four vision tools. */
export const visionCard: CardRenderer = (card, context) => {
  if (card.state !== 'completed') {
    return null;
  }
  const element = document.createElement('div');
  element.className = 'jp-FigureChat-vision';
  element.dataset.callId = card.call.id;
  element.append(renderToolCard(card, context));
  const state = context.views.state(card.call.id);
  element.dataset.views = state.kind;
  switch (state.kind) {
    case 'unknown':
    case 'none':
      break;
    case 'rendering': {
      const pending = document.createElement('div');
      pending.className = 'jp-FigureChat-vision-pending';
      pending.textContent = context.trans.__('Rendering views…');
      element.append(pending);
      break;
    }
    case 'ready':
      state.views.forEach((view, index) =>
        element.append(viewFigure(view, state.record, index, card.call.id, context))
      );
      break;
    case 'problem': {
      const notice = document.createElement('div');
      notice.className = 'jp-FigureChat-vision-problem';
      notice.setAttribute('role', 'status');
      notice.textContent = state.message;
      element.append(notice);
      break;
    }
  }
  return element;
};
