/**
 * What the chat does when a model refuses part of a request (images, a temperature, tools): it
 * remembers the refusal for that model, tells the user, and the reply is retried without it.
 */
import type { AgentDeps } from './agent-deps';
import { VIEWS_NOT_SENT_TEXT, type RoundViews } from './agent-tool-round';
import type { Conversation } from './conversation';
import type { ModelQuirks } from './model-quirks';
import type { Refusal } from './refusals';

/** The notices a user sees when the chat works around what a model refuses. */
export const NOTICES = {
  images: "This model can't see images; views are described in text.",
  temperature:
    'This model refused a temperature, so the request was retried without temperature (the model uses its default).',
  tools:
    'This model has no tool support, so the chat was retried without tools: figures and marks need a model with tool support (for example qwen2.5vl, qwen3, llama3.1, mistral-small3.1). The tools are described to it in text, in case it writes tool calls itself.'
} as const;

/**
 * The notices of what a model was found to refuse, for a conversation started anew (New): the
 * refusals are still remembered for that model, so the chat still works around them and says so.
 */
export function rememberedNotice(quirks: ModelQuirks): string | undefined {
  const notices = [
    quirks.imagesRefused ? NOTICES.images : '',
    quirks.temperatureRefused ? NOTICES.temperature : '',
    quirks.toolsRefused ? NOTICES.tools : ''
  ].filter(Boolean);
  return notices.length ? notices.join(' ') : undefined;
}

/** Notices add up within a session (a model may refuse images and tools in one turn). */
function addNotice(conversation: Conversation, notice: string): void {
  const current = conversation.notice;
  if (!current?.includes(notice)) {
    conversation.setNotice(current ? `${current} ${notice}` : notice);
  }
}

/** Remember a refusal for this model and tell the user what the chat does about it. */
export function applyRefusal(
  conversation: Conversation,
  quirks: ModelQuirks,
  refusal: Exclude<Refusal, 'none'>,
  views: RoundViews
): void {
  switch (refusal) {
    case 'images':
      quirks.imagesRefused = true;
      // The tool results already written said nothing of images; now they say the views did not
      // reach the model, so it does not answer as if it had seen them.
      for (const messageId of views.messageIds) {
        const message = conversation.entries.find(
          entry => entry.role === 'tool' && entry.id === messageId
        );
        if (message?.role === 'tool') {
          conversation.update(messageId, { content: message.content + VIEWS_NOT_SENT_TEXT });
        }
      }
      break;
    case 'temperature':
      quirks.temperatureRefused = true;
      break;
    case 'tools':
      quirks.toolsRefused = true;
      break;
  }
  addNotice(conversation, NOTICES[refusal]);
}

/**
 * Before the first views go to a model with "accepts images: auto", ask its server once whether it
 * takes images at all: Ollama (and llama-cpp-python) accept them from a text-only model and drop
 * them, so no refusal would ever come. A failed question changes nothing.
 */
export async function checkImagesOnce(
  conversation: Conversation,
  deps: AgentDeps,
  quirks: ModelQuirks,
  views: RoundViews,
  signal: AbortSignal
): Promise<void> {
  if (
    !views.images.length ||
    deps.settings.acceptsImages !== 'auto' ||
    quirks.imagesRefused ||
    quirks.imagesChecked ||
    !deps.modelTakesImages
  ) {
    return;
  }
  quirks.imagesChecked = true;
  const takes = await deps
    .modelTakesImages(deps.settings.endpoint, deps.settings.model, signal)
    .catch(() => null);
  if (takes === false) {
    applyRefusal(conversation, quirks, 'images', views);
  }
}
