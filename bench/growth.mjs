/**
 * Notebook growth per present_svg call (SPEC 13: ≤ 1.1 × the SVG's JSON-escaped length + 1 KiB): the example notebook
 * is written as JupyterLab writes it (JSON, indent 1) before and after one assistant message with
 * a present_svg call and its tool result, for 4, 16 and 64 KiB figures, quote-heavy and quote-light.
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

/**
 * A figure of about `target` bytes: the base figure's shapes repeated. Quote-heavy figures are
 * mostly attributes (every `"` costs a backslash in the .ipynb); quote-light ones mostly text and
 * path data.
 */
function figureOf(target, quotes) {
  const shapes = [];
  let i = 0;
  let svg = '';
  do {
    shapes.push(
      quotes === 'heavy'
        ? `<rect x="${(i * 7) % 300}" y="${(i * 13) % 100}" width="20" height="12" rx="2" fill="#cde" stroke="#456"/><text x="${(i * 7) % 300}" y="${(i * 13) % 100}" font-size="9">n${i}</text>`
        : `<path d="M${(i * 7) % 300} ${(i * 13) % 100} l20 0 l0 12 l-20 0 z m4 3 l12 0 l0 6 l-12 0 z"/>`
    );
    i += 1;
    svg = base.replace('</svg>', `${shapes.join('\n')}\n</svg>`);
  } while (Buffer.byteLength(svg) < target);
  return svg;
}

const rows = [];
for (const target of [4096, 16384, 65536]) {
  for (const quotes of ['heavy', 'light']) {
    const svg = figureOf(target, quotes);
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
    // The .ipynb is JSON: every `"`, `\` and newline of the SVG is written with a backslash. That is
    // the format's cost, not a second copy, so the target counts the SVG as JSON writes it.
    const escaped = Buffer.byteLength(JSON.stringify(svg)) - 2;
    const limit = 1.1 * escaped + 1024;
    rows.push({
      figure: `${target / 1024} KiB, quote-${quotes}`,
      svg_bytes: bytes,
      json_escaped: escaped,
      growth_bytes: growth,
      'growth / escaped': (growth / escaped).toFixed(3),
      envelope: growth - escaped,
      'limit (1.1×escaped + 1 KiB)': Math.round(limit),
      within: growth <= limit ? 'yes' : 'NO'
    });
  }
}
console.table(rows);
console.log(
  'one copy of the SVG per call: growth = the SVG as JSON writes it (escaped) + the message envelope'
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
