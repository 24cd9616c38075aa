/**
 * References out of an element: `href` values and CSS `url(…)` arguments. Only a local
 * `#fragment` is allowed, because anything else makes a renderer reach for a file or the network
 * (resvg reads local paths for any non-data `href`).
 */
import { refuse } from './result';

/** A local reference: `#` and an XML-ish id, nothing that could be a path, scheme or function. */
const LOCAL_FRAGMENT = /^#[\p{L}\p{N}_][\p{L}\p{N}_.:-]*$/u;

/** A raster data URL (an SVG data URL is an external document, reported as such). */
const RASTER_DATA_URL = /^data:\s*image\/(?!svg)/i;

/** Cut an untrusted value short so a rejection message stays readable. */
export function excerpt(value: string, max = 60): string {
  const oneLine = value.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** The id a local reference points at, or a rejection naming where the reference was found. */
export function localReference(value: string, where: string): string {
  const trimmed = value.trim();
  if (LOCAL_FRAGMENT.test(trimmed)) {
    return trimmed.slice(1);
  }
  if (RASTER_DATA_URL.test(trimmed)) {
    refuse(
      'raster',
      `SVG embeds a raster image (data:image/…) in ${where}; draw it with vector shapes — raster images are not allowed`
    );
  }
  refuse(
    'external-reference',
    `SVG references "${excerpt(trimmed)}" in ${where}; use only local "#id" references to elements in the same figure — figures must be self-contained`
  );
}

/**
 * Refuse `javascript:`/`vbscript:` URLs anywhere in a value, even with whitespace or control
 * characters inside the scheme (browsers strip them when parsing URLs).
 */
export function checkScriptUrl(value: string, where: string): void {
  if (!value.includes(':')) {
    return; // no scheme without a colon: the common case skips the squeeze below
  }

  const squeezed = value.replace(/[\u0000-\u0020]+/g, '').toLowerCase();
  if (squeezed.includes('javascript:') || squeezed.includes('vbscript:')) {
    refuse(
      'script',
      `SVG contains a script URL (javascript:) in ${where}; remove it — figures must be static`
    );
  }
}
