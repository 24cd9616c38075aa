#!/usr/bin/env node
/**
 * Restore benchmark (SPEC section 13, "reopening a notebook with 200 messages, 40 figures and 20
 * views"): the pure part of reopening — read the stored `figure_chat` value (`loadTranscript`),
 * rebuild the chat items (`buildChatItems`) and the next model request (`buildContext`) — for a
 * generated conversation with 200 messages, 40 `present_svg` figures of ~4 KB and 20 vision calls.
 * The replay checks that also run on reopening (the SVG policy for each figure, the vision fold)
 * are timed alongside. The browser part (rendering the figures) is measured by the UI tests.
 * Run: `node bench/restore.mjs`.
 */

import { loadSources } from './load-sources.mjs';

function load() {
  return loadSources('restore', [
    "export { loadTranscript } from './src/tools/transcript';",
    "export { buildChatItems } from './src/chat/cards';",
    "export { buildContext } from './src/chat/context';",
    "export { checkSvgPolicy } from './src/tools/svg';",
    "export { foldVisionRecords } from './src/tools/vision';"
  ]);
}

/** A bar chart like a model draws: axes, grid, bars, labels, a legend; about 4 KB. */
function barChart(seed) {
  const bars = [];
  const labels = [];
  for (let i = 0; i < 13; i++) {
    const value = 20 + ((seed * 37 + i * 53) % 160);
    const x = 58 + i * 39;
    bars.push(
      `<rect x="${x}" y="${230 - value}" width="30" height="${value}" fill="url(#g)" stroke="#1f4e79" stroke-width="1"/>`
    );
    labels.push(
      `<text x="${x + 15}" y="248" text-anchor="middle" class="t">Q${(i % 4) + 1}·${2020 + (i >> 2)}</text>`
    );
  }
  const grid = [0, 40, 80, 120, 160, 200]
    .map(
      v =>
        `<line x1="50" x2="570" y1="${230 - v}" y2="${230 - v}" class="grid"/><text x="44" y="${234 - v}" text-anchor="end" class="t">${v}</text>`
    )
    .join('');
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300" viewBox="0 0 600 300">',
    '<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#5b9bd5"/><stop offset="1" stop-color="#2e75b6"/></linearGradient>',
    '<marker id="arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker></defs>',
    '<style>.t{font:11px sans-serif;fill:#333}.grid{stroke:#ddd;stroke-width:1}.title{font:bold 14px sans-serif}</style>',
    `<text x="300" y="24" text-anchor="middle" class="title">Quarterly throughput, figure ${seed}</text>`,
    grid,
    '<line x1="50" y1="230" x2="580" y2="230" stroke="#333" marker-end="url(#arrow)"/>',
    '<line x1="50" y1="230" x2="50" y2="30" stroke="#333" marker-end="url(#arrow)"/>',
    ...bars,
    ...labels,
    '<g transform="translate(430,40)"><rect width="130" height="40" fill="#fff" stroke="#999"/>',
    '<rect x="8" y="8" width="12" height="12" fill="url(#g)"/><text x="26" y="18" class="t">requests / s</text>',
    '<path d="M8,30 h12" stroke="#c00" stroke-width="2" stroke-dasharray="3 2"/><text x="26" y="34" class="t">target</text></g>',
    '<path d="M50,120 L570,120" stroke="#c00" stroke-width="2" stroke-dasharray="6 4" fill="none"/>',
    '</svg>'
  ].join('');
}

/** 200 messages: 40 turns with tools (40 figures, 20 vision calls) and 10 plain exchanges. */
function conversation() {
  const messages = [];
  let id = 0;
  const next = prefix => `${prefix}${++id}`;
  const sha = i => i.toString(16).padStart(64, '0');
  for (let turn = 0; turn < 40; turn++) {
    const picture = `cell:cell-${turn % 5}/0`;
    messages.push({
      id: next('u'),
      role: 'user',
      content: `Draw the throughput for period ${turn} and mark the peaks.`,
      created: '2026-11-30T14:00:00Z',
      ...(turn < 20 ? { attachments: [picture] } : {})
    });
    const calls = [
      {
        id: next('c'),
        name: 'present_svg',
        arguments: { svg: barChart(turn), alt: `Throughput per quarter, period ${turn}` }
      }
    ];
    if (turn < 20) {
      calls.push({
        id: next('c'),
        name: 'vision_mark',
        arguments: {
          image: picture,
          marks: Array.from({ length: 6 }, (_, k) => ({
            at:
              k % 2
                ? `${100 + k * 40},${80 + k * 30}`
                : `${50 + k * 30},${60 + k * 20},${150 + k * 30},${140 + k * 20}`,
            caption: `peak ${k + 1}`,
            colour: 'red'
          })),
          view: 'map'
        }
      });
    }
    messages.push({
      id: next('a'),
      role: 'assistant',
      content: `Here is period ${turn}.`,
      status: 'completed',
      created: '2026-11-30T14:00:05Z',
      tool_calls: calls
    });
    for (const call of calls) {
      messages.push(
        call.name === 'present_svg'
          ? {
              id: next('t'),
              role: 'tool',
              tool_call_id: call.id,
              status: 'completed',
              content: `SVG presented inline: ${call.arguments.alt}`
            }
          : {
              id: next('t'),
              role: 'tool',
              tool_call_id: call.id,
              status: 'completed',
              content: 'Added marks #1–#6 (map view shown).',
              picture: { address: picture, sha256: sha(turn + 1), width: 640, height: 480 }
            }
      );
    }
    messages.push({
      id: next('a'),
      role: 'assistant',
      content: `The peaks of period ${turn} are in Q3, **well above** the target line.`,
      status: 'completed'
    });
  }
  for (let i = 0; i < 10; i++) {
    messages.push({ id: next('u'), role: 'user', content: `A follow-up question ${i}?` });
    messages.push({
      id: next('a'),
      role: 'assistant',
      content: `A follow-up answer ${i}, in a paragraph of Markdown.`,
      status: 'completed'
    });
  }
  return { version: 1, messages };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

const { loadTranscript, buildChatItems, buildContext, checkSvgPolicy, foldVisionRecords } =
  await load();
const stored = conversation();
const json = JSON.stringify(stored);
const figures = stored.messages.flatMap(m =>
  (m.tool_calls ?? []).filter(c => c.name === 'present_svg')
);
const vision = stored.messages.flatMap(m =>
  (m.tool_calls ?? []).filter(c => c.name.startsWith('vision_'))
);
const svgBytes = median(figures.map(c => Buffer.byteLength(c.arguments.svg)));

function restore() {
  const times = {};
  let start = now();
  const value = JSON.parse(json);
  times.parse = now() - start;
  start = now();
  const loaded = loadTranscript(value);
  times.load = now() - start;
  start = now();
  const items = buildChatItems(loaded.entries);
  times.items = now() - start;
  start = now();
  const context = buildContext(loaded.entries, {
    systemPrompt: 'You are Figure Chat.',
    budgetTokens: 32_000
  });
  times.context = now() - start;
  start = now();
  const readable = loaded.entries.filter(e => e.role !== 'unreadable');
  for (const item of items) {
    if (
      item.kind === 'tool' &&
      item.call.name === 'present_svg' &&
      !checkSvgPolicy(item.call.arguments.svg).ok
    ) {
      throw new Error(`figure ${item.call.id} rejected`);
    }
  }
  times.policy = now() - start;
  start = now();
  const fold = foldVisionRecords(readable);
  times.fold = now() - start;
  if (loaded.entries.length !== 200 || fold.problems.length || context.length < 2) {
    throw new Error('unexpected restore result');
  }
  return times;
}

const cold = restore();
const runs = [];
for (let i = 0; i < 50; i++) {
  runs.push(restore());
}
const steps = [
  ['JSON.parse of the stored value', 'parse'],
  ['loadTranscript', 'load'],
  ['buildChatItems', 'items'],
  ['buildContext (32k-token budget)', 'context'],
  ['checkSvgPolicy × 40 figures (replay re-check)', 'policy'],
  ['foldVisionRecords (20 vision calls)', 'fold']
];
const rows = steps.map(([name, key]) => [
  name,
  cold[key].toFixed(2),
  median(runs.map(r => r[key])).toFixed(2)
]);
const total = (run, keys) => keys.reduce((sum, key) => sum + run[key], 0);
for (const [name, keys] of [
  ['load + items + context', ['load', 'items', 'context']],
  ['all of the above', steps.map(([, key]) => key)]
]) {
  rows.push([name, total(cold, keys).toFixed(2), median(runs.map(r => total(r, keys))).toFixed(2)]);
}

console.log(
  `Restore (pure part): ${stored.messages.length} messages, ${figures.length} figures of ~${(svgBytes / 1024).toFixed(1)} KiB, ` +
    `${vision.length} vision calls; stored value ${(json.length / 1024).toFixed(0)} KiB (Node ${process.version})\n`
);
const header = ['step', 'first run (ms)', 'median of 50 (ms)'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map(row => row[i].length)));
const line = row =>
  `| ${row.map((cell, i) => (i ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join(' | ')} |`;
console.log(line(header));
console.log(line(widths.map(w => '-'.repeat(w))));
rows.forEach(row => console.log(line(row)));
console.log(
  '\nThe SPEC target (every figure visible within 2 s of reopening) is for the browser; this is its pure part.'
);
