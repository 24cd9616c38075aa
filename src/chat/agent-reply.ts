/**
 * One model reply of a turn, streamed into a new assistant message: visible text, reasoning and
 * the tool calls being written show as they arrive; a refusal comes back as a retry.
 */
import type { StoredToolCall } from '../tools/transcript';
import type { AgentDeps } from './agent-deps';
import { appendAssistant, isAbort } from './agent-messages';
import type { RoundViews } from './agent-tool-round';
import { unreadableCalls, type UnreadableCall } from './agent-unreadable';
import type { Conversation } from './conversation';
import { ModelRequestError } from './model-client';
import type { ModelQuirks } from './model-quirks';
import { classifyRefusal, type Refusal } from './refusals';
import { buildRequest } from './request';
import {
  ChatStreamAccumulator,
  ModelStreamError,
  SseDecoder,
  type WritingToolCall
} from './stream';

/** Said instead of "no end-of-stream marker" when a server sent nothing at all to a tool request. */
export const EMPTY_STREAM_WITH_TOOLS =
  'The model server answered with an empty stream. llama-cpp-python\'s server (`python -m llama_cpp.server`) does this when tools are sent while streaming ("Automatic streaming tool choice is not supported"). Use llama.cpp\'s own llama-server with --jinja (or Ollama, vLLM, LM Studio) for tool calls.';

/** The longest answer accepted from one model reply before the turn is stopped. */
export const MAX_ANSWER_CHARS = 200_000;

/** The system prompt: what Figure Chat is and how to use its tools. */
export const SYSTEM_PROMPT = [
  'You are Figure Chat, an assistant in a sidebar beside a Jupyter notebook.',
  'Use notebook_read to see the notebook (cells, outputs, image outputs with their picture addresses).',
  'Use present_svg to show a static SVG diagram inline when a figure materially helps.',
  'Use the vision tools to mark up pictures (cell image outputs or image files) with numbered points and boxes.',
  'Answer in Markdown.'
].join(' ');

/** How one reply ended. */
export type ReplyOutcome =
  | { kind: 'retry'; refusal: Exclude<Refusal, 'none'> }
  | {
      kind: 'done';
      calls: StoredToolCall[];
      error?: string;
      aborted: boolean;
      /** Calls the model wrote that could not be read, to give back to it as failed calls. */
      unreadable?: UnreadableCall[];
    };

/**
 * How many bytes a call being written grows between two progress updates: the chat shows its size
 * in tenths of a KB, so updating per token would only redraw the same label.
 */
export const WRITING_STEP_BYTES = 100;

/**
 * The longest stretch of stream events handled without giving the browser a turn. One network read
 * can hold thousands of events (a fast server, a slow tab); handled in one go they made a task of
 * up to 0.9 s in `ui-tests/bench/stream-scroll.spec.ts`.
 */
export const STREAM_SLICE_MS = 12;

/** Let the browser paint and handle input before the next slice of events. */
function yieldToBrowser(): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, 0));
}

/** What about the calls being written is worth telling the chat: which, and their size in steps. */
function writingKey(writing: ReadonlyArray<WritingToolCall>): string {
  return writing
    .map(call => `${call.id}\u0000${call.name}\u0000${Math.floor(call.bytes / WRITING_STEP_BYTES)}`)
    .join('\u0001');
}

/**
 * Stream one model reply into a new assistant message. With `correctable`, tool calls that
 * arrived whole but could not be read come back as `unreadable` instead of ending the turn.
 */
export async function streamReply(
  conversation: Conversation,
  deps: AgentDeps,
  quirks: ModelQuirks,
  views: RoundViews,
  signal: AbortSignal,
  correctable = false
): Promise<ReplyOutcome> {
  const id = appendAssistant(conversation);
  conversation.setLive({ streamingId: id });
  const sendImages =
    views.images.length > 0 && deps.settings.acceptsImages !== 'no' && !quirks.imagesRefused;
  const request = buildRequest(conversation.entries.slice(0, -1), {
    model: deps.settings.model,
    temperature: deps.settings.temperature,
    contextBudget: deps.settings.contextBudget,
    systemPrompt: SYSTEM_PROMPT,
    tools: deps.registry.specs(),
    quirks,
    images: sendImages ? views.images : undefined
  });
  const decoder = new SseDecoder();
  const accumulator = new ChatStreamAccumulator(`${id}_c`);
  let error: string | undefined;
  let aborted = false;
  let shownWriting = '';
  let unshown = false;
  // The conversation hears of new text once per read (or slice), not per event: each update is a
  // change signal, a render request and a persistence check.
  const show = (): void => {
    if (unshown) {
      unshown = false;
      conversation.update(id, {
        content: accumulator.visible,
        ...(accumulator.reasoning ? { reasoning: accumulator.reasoning } : {})
      });
    }
    const writing = accumulator.writing;
    const key = writingKey(writing);
    if (key !== shownWriting) {
      shownWriting = key;
      conversation.setLive({ streamingId: id, writing });
    }
  };
  try {
    for await (const text of deps.transport(deps.settings.endpoint, request.body, signal)) {
      let sliceStart = performance.now();
      for (const payload of decoder.push(text)) {
        const thought = accumulator.reasoning.length;
        if (accumulator.push(payload) || accumulator.reasoning.length !== thought) {
          unshown = true;
        }
        if (performance.now() - sliceStart > STREAM_SLICE_MS) {
          show();
          await yieldToBrowser();
          signal.throwIfAborted();
          sliceStart = performance.now();
        }
      }
      show();
      if (accumulator.visible.length + accumulator.reasoning.length > MAX_ANSWER_CHARS) {
        throw new ModelStreamError(
          `The model kept writing past ${MAX_ANSWER_CHARS.toLocaleString()} characters, so the answer was stopped. Ask for something shorter or lower the temperature.`
        );
      }
    }
    for (const payload of decoder.flush()) {
      accumulator.push(payload);
    }
  } catch (caught) {
    if (isAbort(caught, signal)) {
      aborted = true;
    } else if (caught instanceof ModelRequestError) {
      const refusal = classifyRefusal(caught.status, caught.message, request.carries);
      if (refusal !== 'none') {
        // The model refused part of the request: remember it for this model, say so, and retry.
        conversation.remove(id);
        return { kind: 'retry', refusal };
      }
      error = caught.message;
    } else {
      error = caught instanceof Error ? caught.message : String(caught);
    }
  }
  if (accumulator.reasoningField) {
    quirks.reasoningField = accumulator.reasoningField;
  }
  const result = accumulator.finish();
  // A reply that ended normally but holds calls that could not be read: the model may write them
  // again if told why (a reply cut by its length limit would only be cut again).
  if (
    correctable &&
    !aborted &&
    !error &&
    result.complete &&
    result.finishReason !== 'length' &&
    result.errors.length
  ) {
    const unreadable = unreadableCalls(result.errors, id, deps.registry);
    conversation.update(id, {
      content: result.content,
      status: 'completed',
      ...(result.reasoning ? { reasoning: result.reasoning } : {}),
      tool_calls: [...result.calls, ...unreadable.map(item => item.call)]
    });
    if (shownWriting) {
      conversation.setLive({ streamingId: id });
    }
    return { kind: 'done', calls: result.calls, aborted: false, unreadable };
  }
  if (!aborted && !error) {
    if (result.errors.length) {
      error = result.errors.join(' ');
    } else if (!result.complete) {
      error =
        accumulator.chunkCount === 0 && request.carries.tools
          ? EMPTY_STREAM_WITH_TOOLS
          : 'The model server ended the answer before it finished (no end-of-stream marker). Try again; if it repeats, check the model server.';
    }
  }
  // A reply cut off keeps the calls that arrived whole (shown as interrupted cards), but none runs.
  const cut = aborted || error !== undefined;
  conversation.update(id, {
    content: result.content,
    status: cut ? 'interrupted' : 'completed',
    ...(result.reasoning ? { reasoning: result.reasoning } : {}),
    ...(result.calls.length ? { tool_calls: result.calls } : {}),
    ...(error ? { error } : {})
  });
  if (shownWriting) {
    // The finished calls have taken the writing cards' places (same ids); a call cut off loses
    // its card. Cleared after the update, so no change shows neither.
    conversation.setLive({ streamingId: id });
  }
  return { kind: 'done', calls: cut ? [] : result.calls, error, aborted };
}
