/**
 * The agent loop: one user turn, streamed from the model, with tool rounds until the model answers
 * without calling a tool (or a guard stops it). Everything is written into the conversation as it
 * happens, so persistence keeps a turn cut off at any point, marked interrupted.
 */
import type { ToolImage, ToolOutput, ToolRegistry } from '../tools/registry';
import type { ToolHost } from '../tools/host';
import type { StoredToolCall, ToolMessage } from '../tools/transcript';
import { newMessageId, type Conversation } from './conversation';
import { ModelRequestError, type ModelTransport } from './model-client';
import { ModelQuirkMemory, type ModelQuirks } from './model-quirks';
import { classifyRefusal, type Refusal } from './refusals';
import { buildRequest } from './request';
import {
  ChatStreamAccumulator,
  ModelStreamError,
  SseDecoder,
  type WritingToolCall
} from './stream';

/** The model settings a turn uses (from `schema/plugin.json`). */
export interface AgentSettings {
  readonly endpoint: string;
  readonly model: string;
  /** Unset: the server's default (fixed-temperature models such as OpenAI's o-series refuse one). */
  readonly temperature?: number;
  readonly contextBudget: number;
  readonly maxToolRounds: number;
  readonly acceptsImages: 'auto' | 'yes' | 'no';
}

/** What a turn needs besides the conversation. */
export interface AgentDeps {
  readonly registry: ToolRegistry;
  readonly transport: ModelTransport;
  readonly settings: AgentSettings;
  /** Passed to tool handlers as `context.host`. */
  readonly toolHost: ToolHost | null;
  /** What models refused so far, by endpoint + model (the session's memory). */
  readonly quirks?: ModelQuirkMemory;
  /**
   * Asks the model's server whether the model takes images (the figure server's `model-info`),
   * for servers that drop images silently instead of refusing them; null when it cannot tell.
   */
  readonly modelTakesImages?: (
    endpoint: string,
    model: string,
    signal: AbortSignal
  ) => Promise<boolean | null>;
}

const INTERRUPTED_TOOL_TEXT = 'Tool call was interrupted (stopped by the user).';

/** Added to a tool result whose views did not reach the model as images. */
export const VIEWS_NOT_SENT_TEXT =
  ' (The views were shown to the user; this model does not accept images, so they were not sent to it.)';

/** The notices a user sees when the chat works around what a model refuses. */
export const NOTICES = {
  images: "This model can't see images; views are described in text.",
  temperature:
    'This model refused a temperature, so the request was retried without temperature (the model uses its default).',
  tools:
    'This model has no tool support, so the chat was retried without tools: figures and marks need a model with tool support (for example qwen2.5vl, qwen3, llama3.1, mistral-small3.1). The tools are described to it in text, in case it writes tool calls itself.'
} as const;

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

function now(): string {
  return new Date().toISOString();
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof Error && error.name === 'AbortError');
}

/**
 * Add an empty assistant message, marked interrupted until its reply completes, so that a save
 * in the middle of it keeps what arrived, marked as cut off.
 */
function appendAssistant(conversation: Conversation, extra: { error?: string } = {}): string {
  const id = newMessageId('a');
  conversation.append({
    id,
    role: 'assistant',
    content: '',
    status: 'interrupted',
    created: now(),
    ...extra
  });
  return id;
}

/** Notices add up within a session (a model may refuse images and tools in one turn). */
function addNotice(conversation: Conversation, notice: string): void {
  const current = conversation.notice;
  if (!current?.includes(notice)) {
    conversation.setNotice(current ? `${current} ${notice}` : notice);
  }
}

/** The views of one tool round: the images, and the tool messages that reported them. */
interface RoundViews {
  images: ToolImage[];
  messageIds: string[];
}

/** How one reply ended. */
type ReplyOutcome =
  | { kind: 'retry'; refusal: Exclude<Refusal, 'none'> }
  | { kind: 'done'; calls: StoredToolCall[]; error?: string; aborted: boolean };

/**
 * How many bytes a call being written grows between two progress updates: the chat shows its size
 * in tenths of a KB, so updating per token would only redraw the same label.
 */
export const WRITING_STEP_BYTES = 100;

/** What about the calls being written is worth telling the chat: which, and their size in steps. */
function writingKey(writing: ReadonlyArray<WritingToolCall>): string {
  return writing
    .map(call => `${call.id}\u0000${call.name}\u0000${Math.floor(call.bytes / WRITING_STEP_BYTES)}`)
    .join('\u0001');
}

/** Stream one model reply into a new assistant message. */
async function streamReply(
  conversation: Conversation,
  deps: AgentDeps,
  quirks: ModelQuirks,
  views: RoundViews,
  signal: AbortSignal
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
  try {
    for await (const text of deps.transport(deps.settings.endpoint, request.body, signal)) {
      for (const payload of decoder.push(text)) {
        const thought = accumulator.reasoning.length;
        if (accumulator.push(payload) || accumulator.reasoning.length !== thought) {
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
      }
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

/** Remember a refusal for this model and tell the user what the chat does about it. */
function applyRefusal(
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

/** Run the tools of one reply; tool messages are written in call order as results arrive. */
async function runTools(
  conversation: Conversation,
  deps: AgentDeps,
  quirks: ModelQuirks,
  calls: StoredToolCall[],
  signal: AbortSignal
): Promise<RoundViews> {
  const outputs: Array<ToolOutput | undefined> = calls.map(() => undefined);
  let written = 0;
  const running = new Set(calls.map(call => call.id));
  conversation.setLive({ runningCallIds: new Set(running) });
  const views: RoundViews = { images: [], messageIds: [] };
  const acceptImages = deps.settings.acceptsImages !== 'no' && !quirks.imagesRefused;
  const writeReady = (): void => {
    while (written < calls.length && outputs[written]) {
      const output = outputs[written] as ToolOutput;
      const call = calls[written];
      let text = output.text;
      const id = newMessageId('t');
      if (output.images?.length) {
        conversation.setViews(call.id, output.images);
        if (acceptImages) {
          views.images.push(...output.images);
          views.messageIds.push(id);
        } else {
          text += VIEWS_NOT_SENT_TEXT;
        }
      }
      const message: ToolMessage = {
        id,
        role: 'tool',
        tool_call_id: call.id,
        status: output.text === INTERRUPTED_TOOL_TEXT ? 'interrupted' : output.status,
        content: text,
        created: now(),
        ...(output.picture ? { picture: output.picture } : {}),
        ...(output.record ? { record: { ...output.record } } : {})
      };
      conversation.append(message);
      written += 1;
    }
  };
  try {
    await deps.registry.callBatch(calls, { signal, host: deps.toolHost }, (index, output) => {
      outputs[index] = output;
      running.delete(calls[index].id);
      conversation.setLive({ runningCallIds: new Set(running) });
      writeReady();
    });
  } catch (error) {
    if (!isAbort(error, signal)) {
      throw error;
    }
  }
  // Whatever did not finish (Stop) is recorded as interrupted, in call order.
  for (let index = written; index < calls.length; index++) {
    outputs[index] ??= { status: 'failed', text: INTERRUPTED_TOOL_TEXT };
  }
  writeReady();
  return views;
}

/**
 * Before the first views go to a model with "accepts images: auto", ask its server once whether it
 * takes images at all: Ollama (and llama-cpp-python) accept them from a text-only model and drop
 * them, so no refusal would ever come. A failed question changes nothing.
 */
async function checkImagesOnce(
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

/** Each refusal can be worked around once per reply: images, temperature, tools. */
const MAX_RETRIES = 3;

/**
 * Run one user turn. Resolves when the turn ends: answered, stopped, failed (an error card is on
 * the last assistant message), or out of tool rounds.
 */
export async function runTurn(
  conversation: Conversation,
  deps: AgentDeps,
  text: string,
  attachments: string[],
  signal: AbortSignal
): Promise<void> {
  conversation.append({
    id: newMessageId('u'),
    role: 'user',
    content: text,
    created: now(),
    ...(attachments.length ? { attachments } : {})
  });
  const quirks = (deps.quirks ?? new ModelQuirkMemory()).of(
    deps.settings.endpoint,
    deps.settings.model
  );
  let views: RoundViews = { images: [], messageIds: [] };
  try {
    for (let round = 0; ; round++) {
      if (signal.aborted) {
        return;
      }
      await checkImagesOnce(conversation, deps, quirks, views, signal);
      if (signal.aborted) {
        return;
      }
      let reply = await streamReply(conversation, deps, quirks, views, signal);
      for (let retry = 0; reply.kind === 'retry' && retry < MAX_RETRIES; retry++) {
        applyRefusal(conversation, quirks, reply.refusal, views);
        reply = await streamReply(conversation, deps, quirks, views, signal);
      }
      if (reply.kind === 'retry') {
        // Every workaround was tried and the server still refuses: show its refusal.
        appendAssistant(conversation, {
          error: `The model server kept refusing the request (${reply.refusal}). Check the model in Settings → Figure Chat.`
        });
        return;
      }
      if (reply.aborted || reply.error || reply.calls.length === 0) {
        return;
      }
      if (round + 1 >= deps.settings.maxToolRounds) {
        await runTools(conversation, deps, quirks, reply.calls, signal);
        if (signal.aborted) {
          return;
        }
        appendAssistant(conversation, {
          error: `Stopped after ${deps.settings.maxToolRounds} tool rounds without a final answer. Ask the model to continue, or raise "Max tool rounds" in Settings → Figure Chat.`
        });
        return;
      }
      views = await runTools(conversation, deps, quirks, reply.calls, signal);
    }
  } finally {
    conversation.setLive({});
  }
}
