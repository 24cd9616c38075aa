/**
 * `<tool_call>` blocks, which two families share (SPEC section 5):
 *
 * - Hermes/Qwen: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`;
 * - GLM-4.5/4.6: `<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>…</tool_call>`.
 *
 * The body tells them apart: Hermes starts (after whitespace) with `{`.
 */
import {
  argumentsFrom,
  excerpt,
  matchAt,
  scanJsonValue,
  skipToCloser,
  skipWhitespace,
  tryParseJson
} from './scan';
import { isRecord } from '../guards';
import type { BlockParse, CallSyntax, Lookahead, ParsedToolCall } from './types';

const OPENER = '<tool_call>';
const CLOSER = '</tool_call>';
const ARG_KEY = '<arg_key>';
const ARG_KEY_END = '</arg_key>';
const ARG_VALUE = '<arg_value>';
const ARG_VALUE_END = '</arg_value>';

const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[\w.:-]/;

/** The end of a GLM tool name that starts at `pos`. */
function nameEnd(text: string, pos: number): number {
  let i = pos;
  while (i < text.length && NAME_CHAR.test(text[i])) {
    i++;
  }
  return i;
}

function confirm(text: string, bodyStart: number): Lookahead {
  const start = skipWhitespace(text, bodyStart);
  if (start === text.length) {
    return 'more';
  }
  const c = text[start];
  if (c === '{' || c === '[') {
    return 'call';
  }
  if (!NAME_START.test(c)) {
    // An empty `<tool_call></tool_call>` is still markup, and reported as a call without a name.
    const empty = matchAt(text, start, CLOSER);
    return empty === 'yes' ? 'call' : empty === 'partial' ? 'more' : 'prose';
  }
  // A GLM call names its tool, then goes straight on with an argument or the end of the call;
  // "<tool_call> tag is …" in prose does not.
  const afterName = nameEnd(text, start);
  const next = skipWhitespace(text, afterName);
  if (next === text.length) {
    return 'more';
  }
  const key = matchAt(text, next, ARG_KEY);
  const close = matchAt(text, next, CLOSER);
  if (key === 'yes' || close === 'yes') {
    return 'call';
  }
  return key === 'partial' || close === 'partial' ? 'more' : 'prose';
}

function parse(text: string, bodyStart: number): BlockParse {
  const start = skipWhitespace(text, bodyStart);
  return text[start] === '{' || text[start] === '['
    ? parseHermes(text, start)
    : parseGlm(text, start);
}

/** A Hermes call's name when it comes first, as every Hermes/Qwen chat template writes it. */
const LEADING_HERMES_NAME = /^\[?\s*\{\s*(?:"function"\s*:\s*\{\s*)?"name"\s*:\s*"([^"\\]+)"/;

function firstName(text: string, bodyStart: number): string | undefined {
  const start = skipWhitespace(text, bodyStart);
  if (start === text.length) {
    return undefined;
  }
  if (text[start] === '{' || text[start] === '[') {
    return LEADING_HERMES_NAME.exec(text.slice(start))?.[1];
  }
  // A GLM block is only opened once its name is followed by more markup, so the name is whole.
  const end = nameEnd(text, start);
  return end > start && end < text.length ? text.slice(start, end) : undefined;
}

/** The `<tool_call>` syntax of Hermes/Qwen and GLM models. */
export const toolCallTag: CallSyntax = {
  opener: OPENER,
  closer: CLOSER,
  confirm,
  parse,
  firstName
};

// ---- Hermes / Qwen ----

const NAME_IN_JSON = /"name"\s*:\s*"([^"\\]*)"/;

function parseHermes(text: string, start: number): BlockParse {
  const scan = scanJsonValue(text, start);
  if (scan.kind === 'partial') {
    return {
      kind: 'incomplete',
      calls: [],
      errors: [],
      callName: NAME_IN_JSON.exec(text.slice(start))?.[1]
    };
  }
  if (scan.kind === 'bad') {
    return skipToCloser(
      text,
      start,
      CLOSER,
      [],
      [],
      near => `The model's tool call is not valid JSON near "${near}".`
    );
  }
  const json = text.slice(start, scan.end);
  const after = skipWhitespace(text, scan.end);
  let end: number;
  const close = matchAt(text, after, CLOSER);
  if (close === 'yes') {
    end = after + CLOSER.length;
  } else if (close === 'partial') {
    return { kind: 'incomplete', calls: [], errors: [] };
  } else {
    const at = text.indexOf(CLOSER, after);
    if (at === -1) {
      return { kind: 'incomplete', calls: [], errors: [] };
    }
    end = at + CLOSER.length;
    // Models sometimes close one brace too many; anything else after the JSON is a real error.
    if (!/^[\s}\]]*$/.test(text.slice(after, at))) {
      return {
        kind: 'complete',
        end,
        calls: [],
        errors: [
          `The model's tool call has unexpected text after its JSON: "${excerpt(text, after, at)}".`
        ]
      };
    }
  }
  const parsed = tryParseJson(json);
  if (!parsed.ok) {
    return {
      kind: 'complete',
      end,
      calls: [],
      errors: [`The model's tool call is not valid JSON (${parsed.error}).`]
    };
  }
  const calls: ParsedToolCall[] = [];
  const errors: string[] = [];
  for (const item of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) {
    const call = hermesCall(item);
    if (typeof call === 'string') {
      errors.push(call);
    } else {
      calls.push(call);
    }
  }
  return { kind: 'complete', end, calls, errors };
}

/** Reads `{name, arguments | parameters}` (or the same inside `function`); a string is an error. */
function hermesCall(value: unknown): ParsedToolCall | string {
  const call = isRecord(value) && isRecord(value.function) ? value.function : value;
  if (!isRecord(call) || typeof call.name !== 'string' || call.name === '') {
    return 'The model\'s tool call has no "name"; expected {"name": …, "arguments": {…}}.';
  }
  const name = call.name;
  const raw = 'arguments' in call ? call.arguments : call.parameters;
  if (raw === undefined || raw === null) {
    return { name, arguments: {} };
  }
  if (isRecord(raw)) {
    return { name, arguments: raw };
  }
  if (typeof raw === 'string') {
    const inner = tryParseJson(raw);
    if (inner.ok && isRecord(inner.value)) {
      return { name, arguments: inner.value };
    }
  }
  return `The model's call to ${name} has arguments that are not a JSON object.`;
}

// ---- GLM-4.5 / 4.6 ----

function parseGlm(text: string, start: number): BlockParse {
  const afterName = nameEnd(text, start);
  const name = text.slice(start, afterName);
  const incomplete: BlockParse = { kind: 'incomplete', calls: [], errors: [], callName: name };
  const entries: [string, unknown][] = [];
  let i = afterName;
  for (;;) {
    i = skipWhitespace(text, i);
    if (i === text.length) {
      return incomplete;
    }
    const close = matchAt(text, i, CLOSER);
    if (close === 'yes') {
      if (name === '') {
        return skipToCloser(
          text,
          i,
          CLOSER,
          [],
          [],
          () => "The model's tool call has no tool name."
        );
      }
      return {
        kind: 'complete',
        end: i + CLOSER.length,
        calls: [{ name, arguments: argumentsFrom(entries) }],
        errors: []
      };
    }
    const key = matchAt(text, i, ARG_KEY);
    if (key === 'partial' || close === 'partial') {
      return incomplete;
    }
    if (key === 'no') {
      return malformedGlm(text, i, name);
    }
    const keyStart = i + ARG_KEY.length;
    const keyEnd = text.indexOf(ARG_KEY_END, keyStart);
    if (keyEnd === -1) {
      return incomplete;
    }
    i = skipWhitespace(text, keyEnd + ARG_KEY_END.length);
    const value = matchAt(text, i, ARG_VALUE);
    if (value === 'partial') {
      return incomplete;
    }
    if (value === 'no') {
      return malformedGlm(text, i, name);
    }
    const valueStart = i + ARG_VALUE.length;
    const valueEnd = text.indexOf(ARG_VALUE_END, valueStart);
    if (valueEnd === -1) {
      return incomplete;
    }
    entries.push([text.slice(keyStart, keyEnd).trim(), glmValue(text.slice(valueStart, valueEnd))]);
    i = valueEnd + ARG_VALUE_END.length;
  }
}

function malformedGlm(text: string, at: number, name: string): BlockParse {
  return skipToCloser(
    text,
    at,
    CLOSER,
    [],
    [],
    near =>
      `The model's call to ${name} is malformed near "${near}"; expected ` +
      '<arg_key>…</arg_key><arg_value>…</arg_value> pairs.'
  );
}

/**
 * GLM servers send every value as text; a value that is a JSON object, array, number or boolean
 * was meant as that. Anything else, including a JSON string literal, stays exactly as written.
 */
function glmValue(raw: string): unknown {
  const t = raw.trim();
  if (!/^[{[\-\d]|^(?:true|false)$/.test(t)) {
    return raw;
  }
  const parsed = tryParseJson(t);
  if (
    parsed.ok &&
    (typeof parsed.value === 'object' ||
      typeof parsed.value === 'number' ||
      typeof parsed.value === 'boolean') &&
    parsed.value !== null
  ) {
    return parsed.value;
  }
  return raw;
}
