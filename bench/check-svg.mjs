#!/usr/bin/env node
/**
 * check-svg benchmark (SPEC section 13): `checkSvg` of a 4 KiB and a just-under-64 KiB figure
 * against a bare resvg parse of the same bytes with the same font options. Reported as ratios;
 * the target is ≤ 1.5×. Run: `node bench/check-svg.mjs`.
 *
 * The TypeScript sources are bundled on the fly with esbuild (native packages stay external and
 * resolve from this checkout's node_modules).
 */
import { createRequire } from 'node:module';

import { loadSources } from './load-sources.mjs';

const require = createRequire(import.meta.url);

function load() {
  return loadSources('check-svg', [
    "export { checkSvg } from './src/server/svg/svg';",
    "export { resvgOptions } from './src/server/svg/fonts';",
    "export { checkSvgPolicy, utf8Length } from './src/tools/svg';",
    "export { scatterFigure } from './src/__tests__/fixtures/svg/valid';"
  ]);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function time(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Interleave the contenders so drift (GC, CPU frequency) hits both alike. */
function measure(contenders, iterations, warmup) {
  for (let i = 0; i < warmup; i++) {
    contenders.forEach(c => c.run());
  }
  const samples = contenders.map(() => []);
  for (let i = 0; i < iterations; i++) {
    contenders.forEach((c, index) => samples[index].push(time(c.run)));
  }
  return samples.map(median);
}

const { Resvg } = require('@resvg/resvg-js');
const { checkSvg, checkSvgPolicy, resvgOptions, scatterFigure, utf8Length } = await load();
const options = resvgOptions();

const cases = [
  { name: '4 KiB figure', svg: scatterFigure(4 * 1024), iterations: 400 },
  { name: '64 KiB figure', svg: scatterFigure(64 * 1024 - 64), iterations: 150 }
];

const rows = [];
for (const { name, svg, iterations } of cases) {
  const bytes = Buffer.from(svg, 'utf8');
  const check = checkSvg(svg);
  if (!check.ok) {
    throw new Error(`benchmark figure rejected: ${check.error.message}`);
  }
  const [policy, full, bare] = measure(
    [
      { run: () => checkSvgPolicy(svg) },
      { run: () => checkSvg(svg) },
      { run: () => new Resvg(bytes, options) }
    ],
    iterations,
    Math.min(50, iterations)
  );
  rows.push({
    figure: name,
    bytes: utf8Length(svg),
    nodes: check.value.nodes,
    'policy ms': policy.toFixed(3),
    'checkSvg ms': full.toFixed(3),
    'bare resvg ms': bare.toFixed(3),
    ratio: `${(full / bare).toFixed(2)}×`,
    target: full / bare <= 1.5 ? '≤ 1.5× ok' : '≤ 1.5× MISSED'
  });
}

console.log('check-svg vs a bare resvg parse (median of interleaved runs, same fonts)');
console.table(rows);
