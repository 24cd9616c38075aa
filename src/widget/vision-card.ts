/**
 * Vision cards: the ordinary card, then the call's views inline in the figure style. Views are
 * never stored: on replay they are re-rendered from the picture and the fold of the transcript,
 * checked against the picture's stored fingerprint; a changed or missing picture shows a notice
 * and the text record instead of a wrong view.
 */
import type { ToolCard } from '../chat/cards';
import { pictureRequest } from '../chat/tools/pictures';
import { isReadable, type StoredMessage } from '../tools/transcript';
import {
  describeMark,
  planVisionCall,
  recordFor,
  walkVisionCalls,
  isVisionTool,
  type RenderAnswer,
  type VisionPlan
} from '../tools/vision';
import {
  insertButton,
  renderToolCard,
  type CardRenderContext,
  type CardRenderer
} from './card-renderers';

const inFlight = new WeakMap<object, Set<string>>();

/** The plan of a stored vision call, re-derived from the transcript (what the live call did). */
export function replayPlan(messages: StoredMessage[], callId: string): VisionPlan | null {
  let plan: VisionPlan | null = null;
  walkVisionCalls(messages, (call, result, before) => {
    if (result.tool_call_id !== callId || !result.picture || !isVisionTool(call.name)) {
      return;
    }
    const record = recordFor(before, result.picture.address);
    plan = planVisionCall(call.name, call.args, record, result.picture);
  });
  return plan;
}

function describeFailure(error: unknown, address: string): string {
  const status = (error as { status?: number }).status;
  const message = error instanceof Error ? error.message : String(error);
  if (status === 409) {
    return `The picture ${address} has changed since these marks were made, so its views are not shown. ${message}`;
  }
  if (status === 404 || (error instanceof Error && error.name === 'PictureNotFoundError')) {
    return `The picture ${address} is gone, so its views are not shown. ${message}`;
  }
  return `The views of ${address} could not be rendered: ${message}`;
}

async function replayViews(card: ToolCard, context: CardRenderContext): Promise<void> {
  const { conversation } = context;
  const picture = card.result?.picture;
  if (!picture) {
    return;
  }
  const messages = conversation.entries.filter(isReadable);
  try {
    const plan = replayPlan(messages, card.call.id);
    if (!plan || !plan.views.length) {
      return;
    }
    const request = pictureRequest(context.notebook(), picture.address);
    const answer = await context.request<RenderAnswer>('render', {
      ...request,
      expectSha256: picture.sha256,
      views: plan.views,
      record: plan.record
    });
    conversation.setViews(card.call.id, answer.views);
  } catch (error) {
    const plan = (() => {
      try {
        return replayPlan(messages, card.call.id);
      } catch {
        return null;
      }
    })();
    const marks = plan?.record.marks.map(describeMark) ?? [];
    const record = marks.length ? `\nMarks: ${marks.join('; ')}` : '';
    conversation.setViewProblem(
      card.call.id,
      `${describeFailure(error, picture.address)}${record}`
    );
  }
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
  const views = context.conversation.views(card.call.id);
  const problem = context.conversation.viewProblem(card.call.id);
  if (problem) {
    const notice = document.createElement('div');
    notice.className = 'jp-FigureChat-vision-problem';
    notice.setAttribute('role', 'status');
    notice.textContent = problem;
    element.append(notice);
  } else if (views) {
    views.forEach((view, index) => {
      const figure = document.createElement('figure');
      figure.className = 'jp-FigureChat-figure jp-FigureChat-visionView';
      const img = document.createElement('img');
      img.className = 'jp-FigureChat-figure-image';
      img.src = `data:image/png;base64,${view.png}`;
      img.alt = view.caption;
      img.width = view.width;
      img.height = view.height;
      img.title = context.trans.__('Click to open full size');
      img.addEventListener('click', () => context.openLarger(img.src, view.caption));
      const caption = document.createElement('figcaption');
      caption.className = 'jp-FigureChat-figure-caption';
      caption.textContent = view.caption;
      figure.append(img, caption);
      const insert = insertButton(context, card.call.id, index);
      if (insert) {
        figure.append(insert);
      }
      element.append(figure);
    });
  } else if (card.result?.picture) {
    const pending = document.createElement('div');
    pending.className = 'jp-FigureChat-vision-pending';
    pending.textContent = context.trans.__('Rendering views…');
    element.append(pending);
    let calls = inFlight.get(context.conversation);
    if (!calls) {
      calls = new Set();
      inFlight.set(context.conversation, calls);
    }
    if (!calls.has(card.call.id)) {
      calls.add(card.call.id);
      void replayViews(card, context).finally(() => calls?.delete(card.call.id));
    }
  }
  return element;
};
