/**
 * Notebook growth per present_svg call (SPEC 13: ≤ 1.1 × SVG bytes + 1 KiB): the example notebook
 * is written as JupyterLab writes it (JSON, indent 1) before and after one assistant message with
 * a present_svg call and its tool result; the growth is compared with the SVG's UTF-8 size.
 *
 * Run: node bench/growth.mjs
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const top = join(dirname(fileURLToPath(import.meta.url)), '..');
const notebook = JSON.parse(readFileSync(join(top, 'examples', 'figure-chat-tour.ipynb'), 'utf8'));
const base = readFileSync(join(top, 'ui-tests', 'model', 'figure.svg'), 'utf8');

function write(nb) {
  return Buffer.byteLength(`${JSON.stringify(nb, null, 1)}\n`);
}

/** A figure of about `target` bytes: the base figure's shapes repeated. */
function figureOf(target) {
  const shapes = [];
  let i = 0;
  let svg = '';
  do {
    shapes.push(
      `<rect x="${(i * 7) % 300}" y="${(i * 13) % 100}" width="20" height="12" rx="2" fill="#cde" stroke="#456"/><text x="${(i * 7) % 300}" y="${(i * 13) % 100}" font-size="9">n${i}</text>`
    );
    i += 1;
    svg = base.replace('</svg>', `${shapes.join('\n')}\n</svg>`);
  } while (Buffer.byteLength(svg) < target);
  return svg;
}

const rows = [];
for (const target of [1024, 4096, 16384, 65000]) {
  const svg = figureOf(target);
  const before = write(notebook);
  const messages = notebook.metadata.figure_chat.messages;
  const grown = structuredClone(notebook);
  grown.metadata.figure_chat.messages = [
    ...messages,
    {
      id: 'a-bench',
      role: 'assistant',
      content: 'Here it is.',
      status: 'completed',
      created: '2026-11-30T15:00:00.000Z',
      tool_calls: [
        { id: 'c-bench', name: 'present_svg', arguments: { svg, alt: 'A benchmark figure' } }
      ]
    },
    {
      id: 't-bench',
      role: 'tool',
      tool_call_id: 'c-bench',
      status: 'completed',
      content: 'SVG presented inline: A benchmark figure',
      created: '2026-11-30T15:00:01.000Z'
    }
  ];
  const growth = write(grown) - before;
  const bytes = Buffer.byteLength(svg);
  const limit = 1.1 * bytes + 1024;
  // JSON itself writes every `"`, `\` and newline of the SVG with a backslash: the .ipynb format's
  // cost, not a second copy. Shown apart so the envelope Figure Chat adds can be read off.
  const escaping = Buffer.byteLength(JSON.stringify(svg)) - 2 - bytes;
  rows.push({
    svg_bytes: bytes,
    growth_bytes: growth,
    'growth / svg': (growth / bytes).toFixed(3),
    json_escaping: escaping,
    envelope: growth - bytes - escaping,
    'limit (1.1×svg + 1 KiB)': Math.round(limit),
    within: growth <= limit ? 'yes' : 'NO'
  });
}
console.table(rows);
console.log(
  'one copy of the SVG per call: growth = svg + JSON escaping of its quotes and newlines + envelope'
);

/*
 * Growth per pinned figure ("Insert into notebook"): one Markdown cell built by the same
 * `pinnedCell` the command uses, holding the PNG fallback (drawn here by resvg at the figure's
 * size over white, as the browser's canvas draws it), the SVG once more (the pinned copy), the
 * bundle and the cell envelope.
 */
const require = createRequire(import.meta.url);
const tools = require(join(top, 'dist', 'tools.cjs'));
const { Resvg } = require('@resvg/resvg-js');
const pinRows = [];
for (const target of [1024, 4096, 16384, 65000]) {
  const svg = figureOf(target);
  const png = new Resvg(svg, { background: 'white' }).render().asPng().toString('base64');
  const cell = tools.pinnedCell({
    bundle: tools.figureBundle('A benchmark figure', { message: 'a-bench', call: 'c-bench' }),
    png,
    text: 'A benchmark figure',
    svg
  });
  const before = write(notebook);
  const pinned = structuredClone(notebook);
  pinned.cells = [...pinned.cells, { id: 'pinned-bench', ...cell }];
  const growth = write(pinned) - before;
  const svgStored = Buffer.byteLength(JSON.stringify(svg)) - 2;
  pinRows.push({
    svg_bytes: Buffer.byteLength(svg),
    growth_bytes: growth,
    png_base64: png.length,
    svg_as_json: svgStored,
    envelope: growth - png.length - svgStored,
    'growth / svg': (growth / Buffer.byteLength(svg)).toFixed(2)
  });
}
console.log(
  '\nper pinned figure (Insert into notebook): PNG fallback + the SVG once more + bundle'
);
console.table(pinRows);
