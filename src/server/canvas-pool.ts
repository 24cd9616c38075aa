/**
 * Canvas buffers of vision views, lent and given back: a view's canvas is 2–3 MB, and a fresh one
 * per render cost its zeroing and page faults, and external memory that made V8 collect (a CPU
 * profile put main-thread collection at 14–17 ms per cold render). ./render gives a canvas back
 * once the last encode reading it is done; one that is never given back (a render that failed
 * midway) is left to the collector.
 */
import { allocatePixels } from './png-encode';

/** Free canvases kept at most, of any sizes: two renders at once, each in two formats at most. */
export const POOLED_CANVASES = 4;

const free: Array<{ readonly key: string; readonly pixels: Buffer }> = [];

/** Canvases lent and not yet given back, with their size key. */
const lent = new WeakMap<Buffer, string>();
let lentCount = 0;

function keyOf(width: number, height: number, channels: number): string {
  return `${width}x${height}x${channels}`;
}

/**
 * Room for `width`×`height` grey or RGB pixels that ./png-encode reads in place (as
 * `allocatePixels`), the pixels left by an earlier view: the caller overwrites every one. It is
 * the caller's until it gives it back with {@link returnCanvas}; nothing else is lent it meanwhile.
 */
export function borrowCanvas(width: number, height: number, channels: 1 | 3): Buffer {
  const key = keyOf(width, height, channels);
  const index = free.findIndex(entry => entry.key === key);
  const pixels =
    index >= 0 ? free.splice(index, 1)[0].pixels : allocatePixels(width, height, channels);
  lent.set(pixels, key);
  lentCount++;
  return pixels;
}

/**
 * Give a borrowed canvas back, once nothing reads it any more (no render draws on it, no encode
 * reads it, no cache holds it). Past {@link POOLED_CANVASES} the oldest free one is dropped.
 */
export function returnCanvas(pixels: Buffer): void {
  const key = lent.get(pixels);
  if (key === undefined) {
    throw new Error('this canvas was not borrowed, or was given back already');
  }
  lent.delete(pixels);
  lentCount--;
  free.push({ key, pixels });
  if (free.length > POOLED_CANVASES) {
    free.shift();
  }
}

/** Drop the free canvases (an idle server gives their memory back). */
export function emptyCanvasPool(): void {
  free.length = 0;
}

/** Canvases free and lent, for the tests. */
export function canvasPoolStats(): { free: number; lent: number } {
  return { free: free.length, lent: lentCount };
}
