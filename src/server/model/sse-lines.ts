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
  /** The unfinished line, in pieces (joined only when it goes out, so a long line is linear). */
  private _held: Uint8Array[] = [];
  private _heldBytes = 0;

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
      this._held.push(chunk);
      this._heldBytes += chunk.length;
      // A line this long is not SSE framing any more: let it through rather than hold it.
      return this._heldBytes > MAX_HELD_LINE_CHARS ? this._release() : '';
    }
    this._held.push(chunk.subarray(0, last + 1));
    const out = this._release();
    if (last + 1 < chunk.length) {
      this._held.push(chunk.subarray(last + 1));
      this._heldBytes = chunk.length - last - 1;
    }
    return out;
  }

  end(): Uint8Array | string {
    if (this._redactor) {
      return this._redactor.end();
    }
    return this._release();
  }

  private _release(): Buffer {
    const out = Buffer.concat(this._held);
    this._held = [];
    this._heldBytes = 0;
    return out;
  }
}
