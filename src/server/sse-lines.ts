/**
 * How streamed bytes go out: whole lines at a time for an event stream (so that, when the proxy
 * has to stop a stream, its own error event starts on a fresh line and the chat can read it), and
 * through the key redactor when a key is configured.
 */
import { MAX_HELD_LINE_CHARS, StreamRedactor, type KeyRedactor } from './redact';

/** Turns upstream chunks into what is written to the browser. */
export interface StreamForwarder {
  /** What can be written now. */
  push(chunk: Uint8Array): Uint8Array | string;
  /** What is left at the end of a complete stream. */
  end(): Uint8Array | string;
}

const NEWLINE = 0x0a;

/** Forwards whole lines of an event stream (or everything, for other bodies), redacting a key. */
export class SseLineForwarder implements StreamForwarder {
  private readonly _redactor?: StreamRedactor;
  private _held: Buffer = Buffer.alloc(0);

  constructor(
    private readonly _lines: boolean,
    key: KeyRedactor | undefined
  ) {
    this._redactor = key ? new StreamRedactor(key) : undefined;
  }

  push(chunk: Uint8Array): Uint8Array | string {
    if (this._redactor) {
      return this._redactor.push(chunk);
    }
    if (!this._lines) {
      return chunk;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last < 0) {
      this._held = Buffer.concat([this._held, chunk]);
      if (this._held.length <= MAX_HELD_LINE_CHARS) {
        return '';
      }
      // A line this long is not SSE framing any more: let it through rather than hold it.
      const all = this._held;
      this._held = Buffer.alloc(0);
      return all;
    }
    const out = Buffer.concat([this._held, chunk.subarray(0, last + 1)]);
    this._held = Buffer.from(chunk.subarray(last + 1));
    return out;
  }

  end(): Uint8Array | string {
    if (this._redactor) {
      return this._redactor.end();
    }
    const rest = this._held;
    this._held = Buffer.alloc(0);
    return rest;
  }
}
