/**
 * Keeping the API key out of whatever the model server sends back.
 *
 * Servers echo credentials in many shapes: raw, JSON-escaped (`\u0073\u006b…`), URL-encoded,
 * base64 (a `Basic` header) and in another case. Matching happens on a decoded view of the text
 * (escapes decoded, letters lower-cased) that maps back to the original characters, so every
 * shape, and any mix of them, is replaced in the original. Callers redact before they cut text,
 * and a stream keeps back the part of a line that could still become a key.
 */

/** What replaces the key. */
export const REDACTED = '[API key]';

/**
 * A decoded view of a text with ASCII letters lower-cased (keys are ASCII; lower-casing only
 * ASCII keeps one view character per decoded character), and each view character's span in the
 * original. Without escapes the spans are the identity and are not stored.
 */
interface DecodedView {
  readonly text: string;
  readonly start?: Int32Array;
  readonly end?: Int32Array;
}

function lowerAscii(text: string): string {
  return text.replace(/[A-Z]+/g, letters => letters.toLowerCase());
}

function startOf(view: DecodedView, i: number): number {
  return view.start ? view.start[i] : i;
}

function endOf(view: DecodedView, i: number): number {
  return view.end ? view.end[i] : i + 1;
}

function hexAt(text: string, from: number, length: number): number {
  let value = 0;
  for (let i = from; i < from + length; i++) {
    const digit = parseInt(text[i] ?? '', 16);
    if (Number.isNaN(digit)) {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

function decodedView(text: string): DecodedView {
  // Most text has no escape that could hide a key (`\n` and `\"` cannot): take the fast path.
  if (!/\\[ux/]|%[0-9a-f]{2}/i.test(text)) {
    return { text: lowerAscii(text) };
  }
  const codes: number[] = [];
  const start = new Int32Array(text.length);
  const end = new Int32Array(text.length);
  let i = 0;
  while (i < text.length) {
    let code = text.charCodeAt(i);
    let width = 1;
    const next = text[i + 1];
    if (code === 0x5c && next === 'u' && hexAt(text, i + 2, 4) >= 0) {
      code = hexAt(text, i + 2, 4);
      width = 6;
    } else if (code === 0x5c && next === 'x' && hexAt(text, i + 2, 2) >= 0) {
      code = hexAt(text, i + 2, 2);
      width = 4;
    } else if (code === 0x5c && next === '/') {
      code = 0x2f;
      width = 2;
    } else if (code === 0x25 && hexAt(text, i + 1, 2) >= 0) {
      code = hexAt(text, i + 1, 2);
      width = 3;
    }
    start[codes.length] = i;
    end[codes.length] = i + width;
    codes.push(code >= 0x41 && code <= 0x5a ? code + 32 : code);
    i += width;
  }
  let view = '';
  for (let at = 0; at < codes.length; at += 8192) {
    view += String.fromCharCode(...codes.slice(at, at + 8192));
  }
  return { text: view, start: start.subarray(0, codes.length), end: end.subarray(0, codes.length) };
}

/** The base64 texts that always appear when `key` is base64-encoded at any byte offset. */
function base64Forms(key: Buffer): string[] {
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), key])
      .toString('base64')
      .replace(/=+$/, '');
    // Drop the characters that mix in bits of the unknown bytes before and after the key.
    const head = Math.ceil((offset * 4) / 3);
    const total = offset + key.length;
    const tail = total % 3 === 0 ? 0 : 1;
    const core = encoded.slice(head, encoded.length - tail);
    if (core.length >= 4) {
      forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return forms;
}

/** Finds and replaces one key in all the shapes it can take. */
export class KeyRedactor {
  /** Lower-cased forms to look for in the decoded view. */
  private readonly _forms: string[];
  /** The longest any form can be in the original text (every character `\uXXXX`-escaped). */
  readonly longestEncoded: number;

  constructor(key: string) {
    const forms = new Set([lowerAscii(key)]);
    for (const form of base64Forms(Buffer.from(key, 'utf8'))) {
      forms.add(lowerAscii(form));
    }
    this._forms = [...forms].filter(form => form.length > 0);
    this.longestEncoded = Math.max(...this._forms.map(form => form.length)) * 6;
  }

  /**
   * The spans of `text` that hold the key. With `atEnd`, a trailing piece of at least 4 characters
   * that starts a form counts too: a body cut by a cap must not leak the key's beginning.
   */
  spans(text: string, atEnd = false): Array<[number, number]> {
    const view = decodedView(text);
    const found: Array<[number, number]> = [];
    for (const form of this._forms) {
      let from = 0;
      for (;;) {
        const at = view.text.indexOf(form, from);
        if (at < 0) {
          break;
        }
        found.push([startOf(view, at), endOf(view, at + form.length - 1)]);
        from = at + 1;
      }
      if (atEnd) {
        for (let length = Math.min(form.length - 1, view.text.length); length >= 4; length--) {
          if (view.text.endsWith(form.slice(0, length))) {
            found.push([startOf(view, view.text.length - length), text.length]);
            break;
          }
        }
      }
    }
    return merge(found);
  }

  /** `text` with every occurrence of the key replaced. */
  redact(text: string, atEnd = false): string {
    return replaceSpans(text, this.spans(text, atEnd));
  }
}

function merge(spans: Array<[number, number]>): Array<[number, number]> {
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) {
      last[1] = Math.max(last[1], span[1]);
    } else {
      merged.push([span[0], span[1]]);
    }
  }
  return merged;
}

function replaceSpans(text: string, spans: Array<[number, number]>): string {
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    out += text.slice(at, start) + REDACTED;
    at = end;
  }
  return out + text.slice(at);
}

/** How much of a line without a newline a stream holds before it lets the start go. */
export const MAX_HELD_LINE_CHARS = 1024 * 1024;

/**
 * Redacts a streamed body. A key cannot span a newline, so complete lines go out at once and only
 * the unfinished last line is held (SSE chunks normally end on a line, so nothing waits). A very
 * long line is let go except for a tail long enough to hold a key that is still arriving.
 */
export class StreamRedactor {
  private readonly _decoder = new TextDecoder();
  private _held = '';

  constructor(private readonly _key: KeyRedactor) {}

  /** Feed bytes; returns the redacted text that can go out now. */
  push(chunk: Uint8Array): string {
    const added = this._decoder.decode(chunk, { stream: true });
    // Look for a newline in the new text only, so a long line costs linear time.
    const newline = added.lastIndexOf('\n');
    this._held += added;
    let cut = newline < 0 ? 0 : this._held.length - added.length + newline + 1;
    if (cut === 0 && this._held.length > MAX_HELD_LINE_CHARS) {
      cut = this._safeCut(this._held.length - this._key.longestEncoded);
    }
    if (cut <= 0) {
      return '';
    }
    const ready = this._held.slice(0, cut);
    this._held = this._held.slice(cut);
    return this._key.redact(ready);
  }

  /** The rest, at the end of the stream (a cut-off key's beginning is redacted too). */
  end(): string {
    const rest = this._held + this._decoder.decode();
    this._held = '';
    return this._key.redact(rest, true);
  }

  /** Whether text is held back (the stream stopped in the middle of a line). */
  get holding(): boolean {
    return this._held.length > 0;
  }

  /** A cut at or before `cut` that splits no key, no escape and no surrogate pair. */
  private _safeCut(cut: number): number {
    const view = decodedView(this._held);
    for (let i = 0; view.start && view.end && i < view.start.length; i++) {
      if (view.start[i] < cut && cut < view.end[i]) {
        cut = view.start[i];
        break;
      }
    }
    for (const [start, end] of this._key.spans(this._held)) {
      if (start < cut && cut < end) {
        cut = start;
      }
    }
    const code = this._held.charCodeAt(cut - 1);
    return code >= 0xd800 && code <= 0xdbff ? cut - 1 : cut;
  }
}
