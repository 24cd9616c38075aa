/**
 * The framing of `figure-chat kernel`: the Python package talks to one long-lived Node process over
 * its stdin and stdout. Every message, both ways, is one frame:
 *
 *   u32 LE  length of the JSON header (UTF-8)
 *   u32 LE  length of the binary payload
 *   JSON header, then the binary payload
 *
 * Pictures (20-megapixel arrays included) travel as raw bytes in the payload, never as base64 in
 * JSON, and the process stays up between calls so sharp and resvg load once per kernel.
 */

/** Largest JSON header accepted (a record of 500 marks is well under 1 MiB). */
export const MAX_FRAME_JSON = 16 * 1024 * 1024;

/** Largest binary payload accepted: a 100-megapixel RGBA array, the decode limit. */
export const MAX_FRAME_BINARY = 400 * 1024 * 1024;

/** Raised when the stream is not a sequence of frames (the peer is not the Python bridge). */
export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameError';
  }
}

/** One decoded frame. */
export interface Frame {
  readonly header: unknown;
  readonly payload: Buffer;
}

/** Encode one frame. */
export function encodeFrame(header: unknown, payload: Buffer = Buffer.alloc(0)): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32LE(json.length, 0);
  prefix.writeUInt32LE(payload.length, 4);
  return Buffer.concat([prefix, json, payload]);
}

/**
 * Splits a byte stream into frames. Chunks are kept as a list and joined only once a whole frame
 * is there, so a large payload arriving in 64 KiB chunks is copied once, not once per chunk.
 */
export class FrameReader {
  private _chunks: Buffer[] = [];
  private _buffered = 0;

  /** Add bytes; returns every frame now complete. Throws a {@link FrameError} on a bad length. */
  push(chunk: Buffer): Frame[] {
    this._chunks.push(chunk);
    this._buffered += chunk.length;
    const frames: Frame[] = [];
    for (;;) {
      if (this._buffered < 8) {
        return frames;
      }
      const head = this._peek(8);
      const jsonLength = head.readUInt32LE(0);
      const binaryLength = head.readUInt32LE(4);
      if (jsonLength > MAX_FRAME_JSON || binaryLength > MAX_FRAME_BINARY) {
        throw new FrameError(
          `frame of ${jsonLength} + ${binaryLength} bytes is over the limits (${MAX_FRAME_JSON} JSON, ${MAX_FRAME_BINARY} binary)`
        );
      }
      const total = 8 + jsonLength + binaryLength;
      if (this._buffered < total) {
        return frames;
      }
      const all = this._take(total);
      let header: unknown;
      try {
        header = JSON.parse(all.subarray(8, 8 + jsonLength).toString('utf8'));
      } catch (error) {
        throw new FrameError(`frame header is not JSON (${(error as Error).message})`);
      }
      frames.push({ header, payload: all.subarray(8 + jsonLength) });
    }
  }

  private _peek(length: number): Buffer {
    if (this._chunks[0].length < length) {
      this._chunks = [Buffer.concat(this._chunks)];
    }
    return this._chunks[0].subarray(0, length);
  }

  private _take(length: number): Buffer {
    const joined = this._chunks.length === 1 ? this._chunks[0] : Buffer.concat(this._chunks);
    const taken = joined.subarray(0, length);
    const rest = joined.subarray(length);
    this._chunks = rest.length ? [rest] : [];
    this._buffered = rest.length;
    return taken;
  }
}
