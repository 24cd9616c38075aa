/**
 * Reading an OpenAI-compatible streaming answer: Server-Sent Events in, text deltas and tool calls
 * out. Pure: the network part lives in `model-client.ts`.
 */
import { isRecord } from '../tools/guards';
import {
  ThinkTagSplitter,
  ToolCallTextParser,
  parseToolJson,
  streamedUtf8Length
} from '../tools/toolcalls';

/** Raised when the stream is not what an OpenAI-compatible server sends. */
export class ModelStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelStreamError';
  }
}

/** Splits a byte stream's text into SSE `data:` payloads, whatever the chunk boundaries. */
export class SseDecoder {
  private _buffer = '';

  /** Feed text; returns the complete `data` payloads it finished. */
  push(text: string): string[] {
    this._buffer += text;
    // Servers end lines with LF: then events are found by position, without copying the buffer
    // per event. A 2 MB reply in one-character events is 200,000 events, and a network read can
    // hold thousands of them, all handled in one task (issue 11.9).
    return this._buffer.includes('\r') ? this._pushAnyLineEnds() : this._pushLf();
  }

  private _pushLf(): string[] {
    const buffer = this._buffer;
    const payloads: string[] = [];
    let position = 0;
    for (;;) {
      const end = buffer.indexOf('\n\n', position);
      if (end < 0) {
        break;
      }
      const event = buffer.slice(position, end);
      if (!event.includes('\n')) {
        if (event.startsWith('data:')) {
          payloads.push(event.slice(event.charCodeAt(5) === 32 ? 6 : 5));
        }
      } else {
        const data = event
          .split('\n')
          .filter(line => line.startsWith('data:'))
          .map(line => line.slice(5).replace(/^ /, ''));
        if (data.length) {
          payloads.push(data.join('\n'));
        }
      }
      // As below: the blank line, and at most one more, end the event.
      position = end + 2;
      if (buffer.charCodeAt(position) === 10) {
        position += 1;
      }
    }
    this._buffer = position ? buffer.slice(position) : buffer;
    return payloads;
  }

  /** Any mix of CRLF, CR and LF line ends. */
  private _pushAnyLineEnds(): string[] {
    const payloads: string[] = [];
    let end: number;
    while ((end = this._nextEventEnd()) >= 0) {
      const event = this._buffer.slice(0, end);
      this._buffer = this._buffer.slice(end).replace(/^(\r\n|\r|\n){1,2}/, '');
      const data = event
        .split(/\r\n|\r|\n/)
        .filter(line => line.startsWith('data:'))
        .map(line => line.slice(5).replace(/^ /, ''));
      if (data.length) {
        payloads.push(data.join('\n'));
      }
    }
    return payloads;
  }

  /** What is left when the stream ends (a last event without its blank line). */
  flush(): string[] {
    const rest = this._buffer;
    this._buffer = '';
    return rest.trim() ? this.push(`${rest}\n\n`) : [];
  }

  private _nextEventEnd(): number {
    // A lone CR must not be followed by LF: CRLF is one line end, not an empty line.
    const match = /(\r\n|\r(?!\n)|\n)(\r\n|\r(?!\n)|\n)/.exec(this._buffer);
    return match ? match.index + match[1].length : -1;
  }
}

/** A tool call the model made, with arguments still as text while they stream. */
export interface StreamedToolCall {
  id: string;
  name: string;
  argumentsText: string;
}

/**
 * A tool call the model is writing, for the chat to show before its arguments are complete: its
 * id is the one the finished call gets, so its card turns into the real one in place.
 */
export interface WritingToolCall {
  readonly id: string;
  readonly name: string;
  /** UTF-8 bytes written so far: the arguments of a structured call, the markup of a text call. */
  readonly bytes: number;
}

/** What a finished stream amounts to. */
export interface StreamResult {
  /** Visible text: transport markup and `<think>` reasoning removed. */
  content: string;
  /** What the model thought, from `reasoning_content`, `reasoning` or `<think>` text. */
  reasoning: string;
  calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  /** Problems the turn must report (truncated tool-call JSON, cut stream). */
  errors: string[];
  finishReason: string | null;
  /** Whether `[DONE]` or a finish reason arrived (otherwise the stream was cut). */
  complete: boolean;
}

/** How many calls of one reply show progress while they are written. */
export const MAX_WRITING_CALLS = 16;

/** The delta fields servers stream reasoning in, apart from the answer. */
export type ReasoningField = 'reasoning_content' | 'reasoning';

const REASONING_FIELDS: ReadonlyArray<ReasoningField> = ['reasoning_content', 'reasoning'];

/**
 * Accumulates Chat Completions chunks. Text passes through the `<think>` splitter and then the
 * text tool-call parser, so reasoning and markup a server leaves in the content never show as the
 * answer; structured `tool_calls` are joined by index.
 */
export class ChatStreamAccumulator {
  private readonly _think = new ThinkTagSplitter();
  private readonly _text = new ToolCallTextParser();
  private readonly _calls: StreamedToolCall[] = [];
  /** UTF-8 bytes of each structured call's arguments so far, by position. */
  private readonly _callBytes: number[] = [];
  /** Where each `index` the server gave is kept in `_calls`. */
  private readonly _positions = new Map<unknown, number>();
  private _visible = '';
  private _reasoning = '';
  private _reasoningField: ReasoningField | undefined;
  private _chunks = 0;
  private _finishReason: string | null = null;
  private _done = false;
  private _idPrefix: string;

  constructor(idPrefix = 'call') {
    this._idPrefix = idPrefix;
  }

  /** Visible text so far. */
  get visible(): string {
    return this._visible;
  }

  /** Reasoning so far (all three forms). */
  get reasoning(): string {
    return this._reasoning;
  }

  /** The delta field the server streamed reasoning in, if it did (not `<think>` text). */
  get reasoningField(): ReasoningField | undefined {
    return this._reasoningField;
  }

  /** How many SSE payloads arrived (an empty stream is a server quirk worth naming). */
  get chunkCount(): number {
    return this._chunks;
  }

  /** Structured tool calls so far (names known, arguments maybe partial). */
  get calls(): ReadonlyArray<StreamedToolCall> {
    return this._calls;
  }

  /**
   * The tool calls being written, structured ones first, then text ones (the order of `finish`),
   * each once its name is known; at most {@link MAX_WRITING_CALLS}, so a reply of thousands of
   * calls costs no more per chunk (the rest show when the reply is complete). Until the stream
   * ends a call may still grow, so every call seen so far is listed, finished or not.
   */
  get writing(): WritingToolCall[] {
    const writing: WritingToolCall[] = [];
    for (let i = 0; i < this._calls.length && writing.length < MAX_WRITING_CALLS; i++) {
      const call = this._calls[i];
      if (call.name) {
        writing.push({
          id: this._structuredId(call, i),
          name: call.name,
          bytes: this._callBytes[i]
        });
      }
    }
    this._text.progress(MAX_WRITING_CALLS - writing.length).forEach((call, index) => {
      if (call.name) {
        writing.push({ id: this._textId(index), name: call.name, bytes: call.bytes });
      }
    });
    return writing;
  }

  /** Feed one SSE payload; returns the visible text it added. */
  push(payload: string): string {
    this._chunks += 1;
    if (payload.trim() === '[DONE]') {
      this._done = true;
      return '';
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(payload);
    } catch {
      throw new ModelStreamError(
        `The model server sent a malformed stream chunk: ${payload.slice(0, 200)}`
      );
    }
    if (!isRecord(chunk)) {
      throw new ModelStreamError('The model server sent a stream chunk that is not an object.');
    }
    if (isRecord(chunk.error)) {
      throw new ModelStreamError(
        `The model server reported an error: ${String(chunk.error.message ?? 'unknown')}`
      );
    }
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    let added = '';
    for (const choice of choices) {
      if (!isRecord(choice)) {
        continue;
      }
      const delta = isRecord(choice.delta)
        ? choice.delta
        : isRecord(choice.message)
          ? choice.message
          : {};
      for (const field of REASONING_FIELDS) {
        const value = delta[field];
        if (typeof value === 'string' && value) {
          this._reasoning += value;
          this._reasoningField ??= field;
        }
      }
      if (typeof delta.content === 'string' && delta.content) {
        added += this._pushContent(this._think.push(delta.content));
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const raw of delta.tool_calls) {
          this._mergeToolCall(raw);
        }
      }
      if (typeof choice.finish_reason === 'string') {
        this._finishReason = choice.finish_reason;
      }
    }
    this._visible += added;
    return added;
  }

  /** Close the stream and resolve what it said. */
  finish(): StreamResult {
    this._visible += this._pushContent(this._think.finish());
    const text = this._text.finish();
    const errors = [...text.errors];
    const calls: StreamResult['calls'] = [];
    this._calls.forEach((call, index) => {
      const id = this._structuredId(call, index);
      const source = call.argumentsText.trim() === '' ? '{}' : call.argumentsText;
      try {
        const parsed = parseToolJson(source);
        if (!isRecord(parsed)) {
          throw new Error('not an object');
        }
        calls.push({ id, name: call.name, arguments: parsed });
      } catch {
        errors.push(
          `The model's call to ${call.name || 'a tool'} had truncated or invalid JSON arguments (${source.length} characters); ask again, or raise the model's output limit.`
        );
      }
    });
    text.calls.forEach((call, index) => {
      calls.push({
        id: this._textId(index),
        name: call.name,
        arguments: call.arguments
      });
    });
    return {
      content: text.text,
      reasoning: this._reasoning,
      calls,
      errors,
      finishReason: this._finishReason,
      complete: this._done || this._finishReason !== null
    };
  }

  private _structuredId(call: StreamedToolCall, index: number): string {
    return call.id || `${this._idPrefix}_${index + 1}`;
  }

  private _textId(index: number): string {
    return `${this._idPrefix}_t${index + 1}`;
  }

  /** Routes what the `<think>` splitter decided: reasoning aside, answer text to the call parser. */
  private _pushContent(split: { content: string; reasoning: string }): string {
    this._reasoning += split.reasoning;
    return split.content ? this._text.push(split.content) : '';
  }

  private _mergeToolCall(raw: unknown): void {
    if (!isRecord(raw)) {
      return;
    }
    // Calls are kept densely in arrival order of their `index`, whatever its value: a hostile
    // `index: 1e9` must not make a sparse array that every walk over it crawls through.
    const key = typeof raw.index === 'number' ? raw.index : this._calls.length;
    let index = this._positions.get(key);
    if (index === undefined) {
      index = this._calls.length;
      this._positions.set(key, index);
      this._calls.push({ id: '', name: '', argumentsText: '' });
      this._callBytes.push(0);
    }
    const call = this._calls[index];
    const fn = isRecord(raw.function) ? raw.function : {};
    // llama-cpp-python repeats the id, type and whole name in every delta of a call: a repeat
    // is not more of the name. Names split over deltas (no id after the first) are joined.
    const repeated = typeof raw.id === 'string' && raw.id !== '' && raw.id === call.id;
    if (typeof raw.id === 'string' && raw.id) {
      call.id = raw.id;
    }
    if (typeof fn.name === 'string' && !(repeated && fn.name === call.name)) {
      call.name += fn.name;
    }
    if (typeof fn.arguments === 'string') {
      call.argumentsText += fn.arguments;
      this._callBytes[index] += streamedUtf8Length(fn.arguments);
    } else if (isRecord(fn.arguments)) {
      call.argumentsText = JSON.stringify(fn.arguments);
      this._callBytes[index] = streamedUtf8Length(call.argumentsText);
    }
  }
}
