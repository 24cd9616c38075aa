/**
 * Type guards for JSON of unknown shape (model output, notebook metadata and outputs), shared so
 * each reader narrows the same way instead of casting.
 */

/** Whether a value is a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
