/** A Markdown table of `rows` (the first is the header), as lines, its columns padded to align. */
export function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map(row => String(row[c]).length)));
  const line = row => `| ${row.map((cell, c) => String(cell).padEnd(widths[c])).join(' | ')} |`;
  return [
    line(rows[0]),
    `|${widths.map(w => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line)
  ];
}
