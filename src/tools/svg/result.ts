/**
 * What a check of an SVG figure answers: its size and cost, or one rejection whose message names
 * the class and the fix, so a model reading `Tool error: …` can correct itself.
 */

/** Why a figure was refused. Each kind is one class of problem with one kind of fix. */
export type SvgRejectionKind =
  | 'empty'
  | 'too-large'
  | 'malformed'
  | 'not-svg'
  | 'doctype'
  | 'entity'
  | 'processing-instruction'
  | 'xinclude'
  | 'script'
  | 'event-attribute'
  | 'link'
  | 'animation'
  | 'foreign-object'
  | 'foreign-namespace'
  | 'external-reference'
  | 'css-import'
  | 'css-at-rule'
  | 'css-escape'
  | 'css'
  | 'font-face'
  | 'raster'
  | 'dimensions'
  | 'complexity'
  | 'depth'
  | 'text'
  | 'filter-cost'
  | 'element'
  | 'attribute'
  | 'unreadable';

/** A refused figure: the class and an actionable message naming the fix. */
export interface SvgRejection {
  readonly kind: SvgRejectionKind;
  readonly message: string;
}

/** What an accepted figure measures. */
export interface SvgFigureInfo {
  /** Intrinsic width in CSS pixels. */
  readonly width: number;
  /** Intrinsic height in CSS pixels. */
  readonly height: number;
  /** Element count after `use` and reference expansion. */
  readonly nodes: number;
}

/** The result of checking a figure: `{ ok: true, value }` or `{ ok: false, error }`. */
export type SvgCheck =
  | { readonly ok: true; readonly value: SvgFigureInfo }
  | { readonly ok: false; readonly error: SvgRejection };

/** A rejection result. */
export function reject(kind: SvgRejectionKind, message: string): SvgCheck & { ok: false } {
  return { ok: false, error: { kind, message } };
}

/**
 * Thrown inside the parser's callbacks to stop at the first problem; never escapes the policy
 * check, which turns it back into a result.
 */
export class SvgRejected extends Error {
  constructor(readonly rejection: SvgRejection) {
    super(rejection.message);
    this.name = 'SvgRejected';
  }
}

/** Stop checking with a rejection. */
export function refuse(kind: SvgRejectionKind, message: string): never {
  throw new SvgRejected({ kind, message });
}
