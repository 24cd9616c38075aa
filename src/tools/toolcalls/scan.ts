import { parseToolJson } from './json';
import type { BlockParse, ParsedToolCall } from './types';

/**
 * Small, streaming-aware scanning helpers. Each one answers `partial` (or returns the text's
 * length) instead of guessing when the text ends before it can decide.
 */

/** Whether `literal` is at `pos`: `partial` when the text ends while it still matches. */
export type Match = 'yes' | 'no' | 'partial';

/** Compares `literal` with the text at `pos`. */
export function matchAt(text: string, pos: number, literal: string): Match {
  if (text.length - pos >= literal.length) {
    return text.startsWith(literal, pos) ? 'yes' : 'no';
  }
  return literal.startsWith(text.slice(pos)) ? 'partial' : 'no';
}

/** Matches an opening tag's name: `literal` followed by whitespace, `>` or `/`. */
export function matchTagName(text: string, pos: number, literal: string): Match {
  const m = matchAt(text, pos, literal);
  if (m !== 'yes') {
    return m;
  }
  const next = pos + literal.length;
  if (next >= text.length) {
    return 'partial';
  }
  return isWhitespace(text[next]) || text[next] === '>' || text[next] === '/' ? 'yes' : 'no';
}

/**
 * The UTF-8 byte length of a string, without encoding it, such that lengths of chunks add up: a
 * surrogate pair counts 2 + 2, so a pair split across two chunks still makes 4 bytes (unlike the
 * SVG policy's `utf8Length`, which reads whole strings).
 */
export function streamedUtf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    bytes += code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code < 0xe000) ? 2 : 3;
  }
  return bytes;
}

/** Whether `c` is JSON/XML whitespace. */
export function isWhitespace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\r' || c === '\t';
}

/** The index of the first non-whitespace character at or after `pos` (the length if none). */
export function skipWhitespace(text: string, pos: number): number {
  let i = pos;
  while (i < text.length && isWhitespace(text[i])) {
    i++;
  }
  return i;
}

/** Where a JSON value that starts with `{` or `[` ends. */
export type JsonEnd = { kind: 'end'; end: number } | { kind: 'partial' } | { kind: 'bad' };

/**
 * Finds the end of the JSON object or array starting at `pos` by bracket depth, skipping strings.
 *
 * It does not validate (`JSON.parse` does that afterwards); it only reports `bad` at a `<` outside
 * a string, which valid JSON never has, so a malformed call is not mistaken for a cut-off one.
 */
export function scanJsonValue(text: string, pos: number): JsonEnd {
  let depth = 0;
  let inString = false;
  for (let i = pos; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') {
        i++;
      } else if (c === '"') {
        inString = false;
      }
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) {
        return { kind: 'end', end: i + 1 };
      }
    } else if (c === '<') {
      return { kind: 'bad' };
    }
  }
  return { kind: 'partial' };
}

/** The rest of an opening tag after its name: its attributes and the index after its `>`. */
export type TagEnd =
  | { kind: 'end'; end: number; attributes: Map<string, string> }
  | { kind: 'partial' }
  | { kind: 'bad' };

const ATTRIBUTE = /([A-Za-z_:][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/**
 * Reads attributes up to the `>` that closes an opening tag, honouring quotes. Attribute values
 * are taken as written (names and flags in call markup never hold entities).
 */
export function scanTagRest(text: string, pos: number): TagEnd {
  let quote = '';
  for (let i = pos; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) {
        quote = '';
      }
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '<') {
      return { kind: 'bad' };
    } else if (c === '>') {
      const attributes = new Map<string, string>();
      for (const m of text.slice(pos, i).matchAll(ATTRIBUTE)) {
        attributes.set(m[1], m[2] ?? m[3] ?? '');
      }
      return { kind: 'end', end: i + 1, attributes };
    }
  }
  return { kind: 'partial' };
}

/** Parses JSON, returning the reason it failed instead of throwing. */
export function tryParseJson(
  text: string
): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseToolJson(text) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Builds an arguments object from key/value pairs. `Object.fromEntries` defines own properties,
 * so a key such as `__proto__` stays an ordinary argument instead of changing the prototype.
 */
export function argumentsFrom(entries: [string, unknown][]): Record<string, unknown> {
  return Object.fromEntries(entries);
}

/**
 * Ends a block whose markup is malformed: everything up to the block's closing tag is dropped and
 * reported, or the block is still open if that tag has not arrived.
 *
 * `problem` words the error around an excerpt of the dropped markup; the excerpt stops at the
 * closing tag so the message never depends on text after the block.
 */
export function skipToCloser(
  text: string,
  from: number,
  closer: string,
  calls: ParsedToolCall[],
  errors: string[],
  problem: (near: string) => string
): BlockParse {
  const at = text.indexOf(closer, from);
  const all = [...errors, problem(excerpt(text, from, at === -1 ? text.length : at))];
  if (at === -1) {
    return { kind: 'incomplete', calls, errors: all };
  }
  return { kind: 'complete', end: at + closer.length, calls, errors: all };
}

/** A short, single-line excerpt of `text` from `pos` (and before `end`) for error messages. */
export function excerpt(text: string, pos: number, end: number): string {
  const stop = Math.min(end, pos + 40);
  const s = text.slice(pos, stop).replace(/\s+/g, ' ');
  return stop < end ? `${s}…` : s;
}
