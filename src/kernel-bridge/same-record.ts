/**
 * Comparing records by content: the page's own record and the kernel's checked copy of it hold the
 * same marks with their keys in different orders.
 */

/** JSON with object keys sorted, so records built in different places compare by content. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonical).join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A field of a JSON object, or undefined for anything else. */
export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** Whether two records (untrusted) hold the same marks and the same last number. */
export function sameMarks(a: unknown, b: unknown): boolean {
  return (
    canonical(field(a, 'marks')) === canonical(field(b, 'marks')) &&
    canonical(field(a, 'lastId')) === canonical(field(b, 'lastId'))
  );
}
