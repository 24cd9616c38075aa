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

/** A decoded, lower-cased view of a text, with each view character's span in the original. */
interface DecodedView {
  readonly text: string;
  readonly start: number[];
  readonly end: number[];
}

const HEX = /^[0-9a-f]+$/i;

function decodedView(text: string): DecodedView {
  let view = '';
  const start: number[] = [];
  const end: number[] = [];
  let i = 0;
  while (i < text.length) {
    let char = text[i];
    let width = 1;
    if (char === '\\' && text[i + 1] === 'u' && HEX.test(text.slice(i + 2, i + 6))) {
      char = String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
      width = 6;
    } else if (char === '\\' && text[i + 1] === 'x' && HEX.test(text.slice(i + 2, i + 4))) {
      char = String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16));
      width = 4;
    } else if (char === '\\' && text[i + 1] === '/') {
      char = '/';
      width = 2;
    } else if (char === '%' && HEX.test(text.slice(i + 1, i + 3))) {
      char = String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
      width = 3;
    }
    view += char.toLowerCase();
    start.push(i);
    end.push(i + width);
    i += width;
  }
  return { text: view, start, end };
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
    const forms = new Set([key.toLowerCase()]);
    for (const form of base64Forms(Buffer.from(key, 'utf8'))) {
      forms.add(form.toLowerCase());
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
        found.push([view.start[at], view.end[at + form.length - 1]]);
        from = at + 1;
      }
      if (atEnd) {
        for (let length = Math.min(form.length - 1, view.text.length); length >= 4; length--) {
          if (view.text.endsWith(form.slice(0, length))) {
            found.push([view.start[view.text.length - length], text.length]);
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
    this._held += this._decoder.decode(chunk, { stream: true });
    const newline = this._held.lastIndexOf('\n');
    let cut = newline + 1;
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
    for (let i = 0; i < view.start.length; i++) {
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
