/**
 * The context builder: what is sent to the model, shaped by a budget. It never changes the visible
 * transcript. Older figures become `[figure: alt]`, older large tool results are cut, images only
 * travel for the round that produced them, and the oldest turns drop out first.
 */
import type { ToolImage } from '../tools/registry';
import { isReadable, type StoredMessage, type UnreadableEntry } from '../tools/transcript';

/** An OpenAI Chat Completions message. */
export type ModelMessage =
  | { role: 'system'; content: string }
  | {
      role: 'user';
      content:
        | string
        | Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;
    }
  | {
      role: 'assistant';
      /**
       * Always a string, "" beside tool calls: llama-cpp-python's server answers 500 to `null`
       * (and to a missing field), while OpenAI, Ollama, vLLM and llama.cpp take "".
       */
      content: string;
      reasoning_content?: string;
      reasoning?: string;
      tool_calls?: Array<{
        id: string;
        type: 'function';
        function: { name: string; arguments: string };
      }>;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** How the context is shaped. */
export interface ContextOptions {
  readonly systemPrompt: string;
  /** The budget in tokens (estimated as characters / 4). */
  readonly budgetTokens: number;
  /** Views of the current round, sent as images after the tool results. */
  readonly images?: ReadonlyArray<ToolImage>;
  /** Tool results longer than this (characters) are cut when not in the latest turn. */
  readonly maxOldResultChars?: number;
  /**
   * The field the server streams reasoning in. Reasoning goes back in it only within the latest
   * turn's tool rounds, where servers of interleaved-thinking models expect it; older turns and
   * servers that never sent the field (reasoning as `<think>` text) never get it back.
   */
  readonly reasoningField?: 'reasoning_content' | 'reasoning';
}

/** The token estimate used against the budget. */
export function estimateTokens(messages: ReadonlyArray<ModelMessage>): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}

/** What one image is counted as against the budget. */
export const IMAGE_TOKENS = 1000;

const INTERRUPTED_RESULT = 'Tool call was interrupted before it finished.';

function compactArguments(name: string, args: Record<string, unknown>): Record<string, unknown> {
  if (name === 'present_svg') {
    const alt = typeof args.alt === 'string' ? args.alt : '';
    return { svg: `[figure: ${alt}]`, alt };
  }
  return args;
}

function userText(message: Extract<StoredMessage, { role: 'user' }>): string {
  const attachments = message.attachments ?? [];
  return attachments.length
    ? `${message.content}\n\n[Attached pictures: ${attachments.join(', ')}]`
    : message.content;
}

/** Group messages into turns (a user message and what follows it). */
function turnsOf(messages: ReadonlyArray<StoredMessage>): StoredMessage[][] {
  const turns: StoredMessage[][] = [];
  for (const message of messages) {
    if (message.role === 'user' || turns.length === 0) {
      turns.push([]);
    }
    turns[turns.length - 1].push(message);
  }
  return turns;
}

function toModel(
  turn: ReadonlyArray<StoredMessage>,
  latest: boolean,
  options: ContextOptions
): ModelMessage[] {
  const out: ModelMessage[] = [];
  const results = new Map<string, string>();
  for (const message of turn) {
    if (message.role === 'tool') {
      results.set(message.tool_call_id, message.content);
    }
  }
  const maxOld = options.maxOldResultChars ?? 2000;
  for (const message of turn) {
    if (message.role === 'user') {
      out.push({ role: 'user', content: userText(message) });
    } else if (message.role === 'assistant') {
      const calls = message.tool_calls ?? [];
      const reasoning =
        latest && calls.length && options.reasoningField && message.reasoning
          ? { [options.reasoningField]: message.reasoning }
          : {};
      out.push({
        role: 'assistant',
        content: message.content,
        ...reasoning,
        ...(calls.length
          ? {
              tool_calls: calls.map(call => ({
                id: call.id,
                type: 'function' as const,
                function: {
                  name: call.name,
                  arguments: JSON.stringify(
                    latest ? call.arguments : compactArguments(call.name, call.arguments)
                  )
                }
              }))
            }
          : {})
      });
      for (const call of calls) {
        let content = results.get(call.id) ?? INTERRUPTED_RESULT;
        if (!latest && content.length > maxOld) {
          content = `${content.slice(0, maxOld)}… [cut: ${content.length - maxOld} more characters]`;
        }
        out.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
  }
  return out;
}

/**
 * A view as the model gets it: its compact copy when the renderer made one (a fraction of the
 * PNG's bytes, which a local model server must parse on every request), else the PNG people see.
 */
export function imageUrl(image: ToolImage): string {
  return image.model
    ? `data:${image.model.mime};base64,${image.model.data}`
    : `data:image/png;base64,${image.png}`;
}

/**
 * Build the messages for the next model request. The latest turn is always sent whole; older
 * turns are compacted, then dropped oldest first while the estimate exceeds the budget.
 */
export function buildContext(
  entries: ReadonlyArray<StoredMessage | UnreadableEntry>,
  options: ContextOptions
): ModelMessage[] {
  const readable = entries.filter(isReadable);
  const turns = turnsOf(readable);
  const system: ModelMessage = { role: 'system', content: options.systemPrompt };
  const latest = turns.length ? toModel(turns[turns.length - 1], true, options) : [];
  // An image costs the model a roughly fixed number of tokens, not its base64 length.
  let used = estimateTokens([system, ...latest]) + IMAGE_TOKENS * (options.images?.length ?? 0);
  if (options.images?.length) {
    latest.push({
      role: 'user',
      content: [
        { type: 'text', text: 'The views rendered by the tool calls above:' },
        ...options.images.map(image => ({
          type: 'image_url' as const,
          image_url: { url: imageUrl(image) }
        }))
      ]
    });
  }
  const kept: ModelMessage[][] = [];
  for (let i = turns.length - 2; i >= 0; i--) {
    const older = toModel(turns[i], false, options);
    const cost = estimateTokens(older);
    if (used + cost > options.budgetTokens) {
      break;
    }
    used += cost;
    kept.unshift(older);
  }
  return [system, ...kept.flat(), ...latest];
}
