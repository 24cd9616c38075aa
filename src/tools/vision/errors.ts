/** The one error type of the vision tools: a typed code and a message the model can act on. */

/** What went wrong, for callers that branch on it (the message is for people and models). */
export type VisionErrorCode =
  | 'bad-args'
  | 'bad-address'
  | 'bad-picture'
  | 'bad-colour'
  | 'bad-caption'
  | 'bad-radius'
  | 'degenerate-box'
  | 'bad-polygon'
  | 'bad-label'
  | 'out-of-bounds'
  | 'unknown-mark'
  | 'too-many-marks'
  | 'no-picture';

/** Bad input to a vision tool. Thrown by the pure functions, never repaired. */
export class VisionError extends Error {
  constructor(
    readonly code: VisionErrorCode,
    message: string
  ) {
    super(message);
    this.name = 'VisionError';
  }
}
