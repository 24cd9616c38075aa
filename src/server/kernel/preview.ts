/**
 * The widget's previews, made by the kernel program: downscaled JPEGs the `Vision` view draws
 * marks over, sent to the view as binary buffers in custom messages (never a synced trait, so no
 * widget state ever stores them). The first paint waits on the quick one, so the `picture` op
 * starts it the moment it has the picture's size ({@link startQuickPreview}): its decode runs in
 * sharp's thread pool while Node hashes the bytes and the kernel opens the widget and shows the
 * output, and the `preview` request that follows takes it finished or nearly so.
 */
import sharp from 'sharp';

import { LIMIT_INPUT_PIXELS } from '../pictures/pictures';

/** Longest side of the preview the widget draws marks over. */
export const PREVIEW_MAX_SIDE = 1600;

/**
 * JPEG quality of the preview: it is only the backdrop the marks are drawn over while a person
 * works, never stored, so a modest quality keeps it small on the comm and quick to encode.
 */
export const PREVIEW_JPEG_QUALITY = 75;

/** A preview as the kernel program answers it: its size, and the JPEG. */
export interface Preview {
  readonly json: { width: number; height: number; mime: 'image/jpeg' };
  readonly payload: Buffer;
}

/** What a preview is made from: the picture's bytes and its size as shown (EXIF-oriented). */
export interface PreviewSource {
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
}

/**
 * A preview with `maxSide` as its longest side. sharp shrinks a JPEG while decoding it
 * (shrink-on-load), so a 4000×3000 picture is never decoded at full size for this. autoOrient:
 * the preview is drawn the way the picture is shown and measured (`readHeader`), so the marks the
 * view draws over it, in those coordinates, land on what they mark; a phone photo stored on its
 * side was otherwise shown on its side and stretched.
 */
export async function makePreview(source: PreviewSource, maxSide: number): Promise<Preview> {
  const scale = Math.min(1, maxSide / Math.max(source.width, source.height));
  const width = Math.max(1, Math.round(source.width * scale));
  const height = Math.max(1, Math.round(source.height * scale));
  const jpeg = await sharp(source.bytes, {
    limitInputPixels: LIMIT_INPUT_PIXELS,
    failOn: 'warning',
    autoOrient: true
  })
    .resize(width, height, { fit: 'fill', fastShrinkOnLoad: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: PREVIEW_JPEG_QUALITY })
    .toBuffer();
  return { json: { width, height, mime: 'image/jpeg' }, payload: jpeg };
}

/**
 * Quick previews started ahead of their request, by sha-256 and side. A few: each is a promise
 * of some kilobytes, and the request follows its `picture` op within milliseconds.
 */
const started = new Map<string, Promise<Preview>>();
const STARTED_LIMIT = 8;

function key(sha256: string, maxSide: number): string {
  return `${sha256}:${maxSide}`;
}

/**
 * Start the `maxSide` preview of a picture now, if the widget will ask for it: only pictures
 * larger than the full preview get a quicker, smaller one first (widget.py's rule too). sharp
 * queues the decode on its threads at once, so the caller can hash the bytes meanwhile and then
 * {@link keepQuickPreview} it under the digest.
 */
export function startQuickPreview(
  source: PreviewSource,
  maxSide: number
): Promise<Preview> | undefined {
  if (Math.max(source.width, source.height) <= PREVIEW_MAX_SIDE || maxSide >= PREVIEW_MAX_SIDE) {
    return undefined;
  }
  const making = makePreview(source, maxSide);
  // Its failure is the `preview` request's to report; until then it must not go unhandled.
  making.catch(() => undefined);
  return making;
}

/** Keep a started preview for the `preview` request that will ask for it. */
export function keepQuickPreview(sha256: string, maxSide: number, making: Promise<Preview>): void {
  started.delete(key(sha256, maxSide));
  started.set(key(sha256, maxSide), making);
  if (started.size > STARTED_LIMIT) {
    // Map order is insertion order: drop the oldest.
    const oldest = started.keys().next().value;
    if (oldest !== undefined) {
      started.delete(oldest);
    }
  }
}

/** The preview a request asks for: the one started ahead if there is one, else made now. */
export function preview(
  source: PreviewSource & { readonly sha256: string },
  maxSide: number
): Promise<Preview> {
  return started.get(key(source.sha256, maxSide)) ?? makePreview(source, maxSide);
}
