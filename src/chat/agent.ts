/**
 * The agent loop: one user turn, streamed from the model, with tool rounds until the model answers
 * without calling a tool (or a guard stops it). Everything is written into the conversation as it
 * happens, so persistence keeps a turn cut off at any point, marked interrupted.
 */
import type { ToolImage, ToolOutput, ToolRegistry } from '../tools/registry';
import type { ToolHost } from '../tools/host';
import type { StoredToolCall, ToolMessage } from '../tools/transcript';
import { buildContext } from './context';
import { newMessageId, type Conversation } from './conversation';
import { ModelRequestError, type ModelTransport } from './model-client';
import { ChatStreamAccumulator, ModelStreamError, SseDecoder } from './stream';

/** The model settings a turn uses (from `schema/plugin.json`). */
export interface AgentSettings {
  readonly endpoint: string;
  readonly model: string;
  readonly temperature: number;
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
  /** Session memory: set once a model refused an image request. */
  imagesRefused?: boolean;
}

const INTERRUPTED_TOOL_TEXT = 'Tool call was interrupted (stopped by the user).';

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

/** Stream one model reply into a new assistant message. */
async function streamReply(
  conversation: Conversation,
  deps: AgentDeps,
  images: ReadonlyArray<ToolImage>,
  signal: AbortSignal
): Promise<{ id: string; calls: StoredToolCall[]; error?: string; aborted: boolean }> {
  const id = appendAssistant(conversation);
  conversation.setLive({ streamingId: id });
  const sendImages =
    images.length > 0 && deps.settings.acceptsImages !== 'no' && !deps.imagesRefused;
  const body = {
    model: deps.settings.model,
    messages: buildContext(conversation.entries.slice(0, -1), {
      systemPrompt: SYSTEM_PROMPT,
      budgetTokens: deps.settings.contextBudget,
      images: sendImages ? images : undefined
    }),
    tools: deps.registry.specs(),
    stream: true,
    temperature: deps.settings.temperature
  };
  const decoder = new SseDecoder();
  const accumulator = new ChatStreamAccumulator(`${id}_c`);
  let error: string | undefined;
  let aborted = false;
  try {
    for await (const text of deps.transport(deps.settings.endpoint, body, signal)) {
      for (const payload of decoder.push(text)) {
        if (accumulator.push(payload)) {
          conversation.update(id, { content: accumulator.visible });
        }
      }
      if (accumulator.visible.length > MAX_ANSWER_CHARS) {
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
    } else if (
      caught instanceof ModelRequestError &&
      sendImages &&
      [400, 415, 422].includes(caught.status)
    ) {
      // The model refused the images: once per session, fall back to text and say so.
      deps.imagesRefused = true;
      conversation.setNotice(
        'The model refused images, so the views are described to it in text from now on.'
      );
      conversation.remove(id);
      return { id, calls: [], error: 'retry-without-images', aborted: false };
    } else {
      error = caught instanceof Error ? caught.message : String(caught);
    }
  }
  const result = accumulator.finish();
  if (!aborted && !error) {
    if (result.errors.length) {
      error = result.errors.join(' ');
    } else if (!result.complete) {
      error =
        'The model server ended the answer before it finished (no end-of-stream marker). Try again; if it repeats, check the model server.';
    }
  }
  // A reply cut off keeps the calls that arrived whole (shown as interrupted cards), but none runs.
  const cut = aborted || error !== undefined;
  conversation.update(id, {
    content: result.content,
    status: cut ? 'interrupted' : 'completed',
    ...(result.calls.length ? { tool_calls: result.calls } : {}),
    ...(error ? { error } : {})
  });
  return { id, calls: cut ? [] : result.calls, error, aborted };
}

/** Run the tools of one reply; tool messages are written in call order as results arrive. */
async function runTools(
  conversation: Conversation,
  deps: AgentDeps,
  calls: StoredToolCall[],
  signal: AbortSignal
): Promise<ToolImage[]> {
  const outputs: Array<ToolOutput | undefined> = calls.map(() => undefined);
  let written = 0;
  const running = new Set(calls.map(call => call.id));
  conversation.setLive({ runningCallIds: new Set(running) });
  const images: ToolImage[] = [];
  const acceptImages = deps.settings.acceptsImages !== 'no' && !deps.imagesRefused;
  const writeReady = (): void => {
    while (written < calls.length && outputs[written]) {
      const output = outputs[written] as ToolOutput;
      const call = calls[written];
      let text = output.text;
      if (output.images?.length) {
        conversation.setViews(call.id, output.images);
        if (acceptImages) {
          images.push(...output.images);
        } else {
          text += ' (The views were shown to the user; this model does not accept images.)';
        }
      }
      const message: ToolMessage = {
        id: newMessageId('t'),
        role: 'tool',
        tool_call_id: call.id,
        status: output.text === INTERRUPTED_TOOL_TEXT ? 'interrupted' : output.status,
        content: text,
        created: now(),
        ...(output.picture ? { picture: output.picture } : {})
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
  return images;
}

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
  let images: ToolImage[] = [];
  try {
    for (let round = 0; ; round++) {
      if (signal.aborted) {
        return;
      }
      let reply = await streamReply(conversation, deps, images, signal);
      if (reply.error === 'retry-without-images') {
        reply = await streamReply(conversation, deps, images, signal);
      }
      if (reply.aborted || reply.error || reply.calls.length === 0) {
        return;
      }
      if (round + 1 >= deps.settings.maxToolRounds) {
        await runTools(conversation, deps, reply.calls, signal);
        if (signal.aborted) {
          return;
        }
        appendAssistant(conversation, {
          error: `Stopped after ${deps.settings.maxToolRounds} tool rounds without a final answer. Ask the model to continue, or raise "Max tool rounds" in Settings → Figure Chat.`
        });
        return;
      }
      images = await runTools(conversation, deps, reply.calls, signal);
    }
  } finally {
    conversation.setLive({});
  }
}
