/**
 * Vision rendering benchmark (SPEC 13): a generated 4000×3000 JPEG with 50 marks, drawn as a map
 * (≤ 1024 px), a close-up and a 9-tile sheet by Figure Chat (sharp + resvg) and by the same
 * drawing in Pillow and matplotlib (bench/vision_peers.py). Reports medians and ratios, then the
 * peak RSS of 20 concurrent renders through the `render` route. Ratios, never timed tests.
 *
 *   node bench/vision.mjs [--quick]
 *
 * Python: /work/main/.venv/bin/python (or the repo's .venv) if present, else FIGURE_CHAT_BENCH_PYTHON,
 * else python3; it needs Pillow, NumPy and matplotlib.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadSources, repo } from './load-sources.mjs';

const requireFromRepo = createRequire(join(repo, 'package.json'));
const quick = process.argv.includes('--quick');
const ITERATIONS = { ours: quick ? 5 : 25, pillow: quick ? 3 : 12, matplotlib: quick ? 2 : 5 };
const CONCURRENT_RENDERS = 20;
const W = 4000;
const H = 3000;

/** The render and vision modules, bundled from the TypeScript, and sharp from this checkout. */
async function loadFigureChat() {
  const fc = await loadSources('vision', [
    "export * from './src/server/render';",
    "export * from './src/server/pictures';",
    "export * from './src/tools/vision';"
  ]);
  return { fc, sharp: requireFromRepo('sharp') };
}

/** A 4000×3000 picture with structure at every scale (gradients and a fine grid), as JPEG. */
async function makePicture(sharp) {
  const pixels = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 3;
      const grid = x % 50 < 2 || y % 50 < 2 ? 60 : 0;
      pixels[i] = ((x * 255) / W + grid) & 255;
      pixels[i + 1] = ((y * 255) / H + grid) & 255;
      pixels[i + 2] = (((x ^ y) & 255) >> 1) + 64;
    }
  }
  return sharp(pixels, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

function fiftyMarks(fc, address) {
  const colours = fc.PALETTE;
  const marks = Array.from({ length: 50 }, (_, i) => {
    const x = 80 + ((i * 797) % (W - 400));
    const y = 80 + ((i * 577) % (H - 400));
    const colour = colours[i % colours.length];
    return i % 3 === 2
      ? { at: `${x},${y},${x + 150 + (i % 5) * 40},${y + 100 + (i % 4) * 30}`, colour }
      : { at: `${x},${y}`, r: 20 + (i % 6) * 8, colour };
  });
  return fc.applyMarkArgs(fc.emptyRecord(address), { marks }, { width: W, height: H }).record;
}

async function median(iterations, run) {
  await run();
  const times = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const mid = Math.floor(times.length / 2);
  return times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

function pythonInterpreter() {
  const candidates = [join(repo, '.venv/bin/python')];
  return candidates.find(existsSync) ?? process.env.FIGURE_CHAT_BENCH_PYTHON ?? 'python3';
}

function runPeers(job) {
  const python = pythonInterpreter();
  const result = spawnSync(python, [join(repo, 'bench/vision_peers.py')], {
    input: JSON.stringify(job),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    timeout: 110_000
  });
  if (result.status !== 0) {
    return {
      error: `${python}: ${(result.stderr || result.error?.message || '').trim().split('\n').pop()}`
    };
  }
  return { timings: JSON.parse(result.stdout) };
}

/** Peak RSS of 20 concurrent renders through the route, in a fresh process so nothing else counts. */
async function rssChild(root) {
  const { fc } = await loadFigureChat();
  const ctx = { root, hideHidden: true, signal: new AbortController().signal };
  const record = fiftyMarks(fc, 'picture.jpg');
  const body = i => ({
    address: 'picture.jpg',
    view: [
      { kind: 'map' },
      { kind: 'closeup', at: `#${1 + (i % 50)}` },
      { kind: 'sheet', at: ['#1', '#2', '#3', '#4', '#5', '#6', '#7', '#8', '#9'] }
    ][i % 3],
    record
  });
  await fc.renderRoute(body(0), ctx);
  const before = process.resourceUsage().maxRSS;
  const start = performance.now();
  const answers = await Promise.all(
    Array.from({ length: CONCURRENT_RENDERS }, (_, i) => fc.renderRoute(body(i), ctx))
  );
  const elapsed = performance.now() - start;
  process.stdout.write(
    JSON.stringify({ before, peak: process.resourceUsage().maxRSS, done: answers.length, elapsed })
  );
}

async function measureRss(root) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--rss-child', root], {
    stdio: ['ignore', 'pipe', 'inherit']
  });
  let out = '';
  child.stdout.on('data', chunk => (out += chunk));
  await new Promise(resolveExit => child.on('exit', resolveExit));
  return JSON.parse(out);
}

async function main() {
  if (process.argv[2] === '--rss-child') {
    await rssChild(process.argv[3]);
    return;
  }
  const started = performance.now();
  const { fc, sharp } = await loadFigureChat();
  const work = mkdtempSync(join(tmpdir(), 'fc-bench-vision-'));
  try {
    const jpeg = await makePicture(sharp);
    writeFileSync(join(work, 'picture.jpg'), jpeg);
    const ctx = { root: work, hideHidden: true, signal: new AbortController().signal };
    const picture = await fc.loadPicture({ address: 'picture.jpg' }, ctx);
    const record = fiftyMarks(fc, 'picture.jpg');
    const specs = {
      map: { kind: 'map' },
      closeup: { kind: 'closeup', at: '#7' },
      sheet: { kind: 'sheet', at: ['#1', '#2', '#3', '#4', '#5', '#6', '#7', '#8', '#9'] }
    };
    const samples = join(repo, 'bench/out');
    mkdirSync(samples, { recursive: true });
    const ours = {};
    for (const [name, spec] of Object.entries(specs)) {
      ours[name] = await median(ITERATIONS.ours, () => fc.renderView(picture, spec, record));
      writeFileSync(
        join(samples, `ours-${name}.png`),
        (await fc.renderView(picture, spec, record)).png
      );
    }
    const views = Object.entries(specs).map(([name, spec]) => {
      const geometry = fc.viewGeometry(spec, record, picture);
      return {
        name,
        geometry: {
          ...geometry,
          panes: geometry.panes.map(pane => ({ ...pane, ticks: fc.tickLabels(pane) }))
        },
        marks: record.marks,
        hex: Object.fromEntries(Object.entries(fc.PALETTE_HEX).map(([k, v]) => [k, v]))
      };
    });
    const peers = runPeers({
      picture: join(work, 'picture.jpg'),
      font: join(repo, 'node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
      compressLevel: fc.PNG_COMPRESSION_LEVEL,
      iterations: ITERATIONS,
      samples,
      views
    });
    const rss = await measureRss(work);
    const mb = kb => `${(kb / 1024).toFixed(0)} MB`;
    const rows = [
      ['view', 'ours (ms)', 'Pillow (ms)', 'matplotlib (ms)', 'Pillow / ours', 'matplotlib / ours']
    ];
    for (const name of Object.keys(specs)) {
      const p = peers.timings?.[name];
      const fmt = value => (value === undefined ? 'n/a' : value.toFixed(1));
      const ratio = value => (value === undefined ? 'n/a' : `${(value / ours[name]).toFixed(1)}×`);
      rows.push([
        name,
        fmt(ours[name]),
        fmt(p?.pillow),
        fmt(p?.matplotlib),
        ratio(p?.pillow),
        ratio(p?.matplotlib)
      ]);
    }
    const widths = rows[0].map((_, c) => Math.max(...rows.map(row => row[c].length)));
    const line = row => `| ${row.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
    const out = [
      `Vision views of a ${W}×${H} JPEG with 50 marks (medians; ours ${ITERATIONS.ours} runs, Pillow ${ITERATIONS.pillow}, matplotlib ${ITERATIONS.matplotlib}; PNG zlib level ${fc.PNG_COMPRESSION_LEVEL} for all)`,
      line(rows[0]),
      `|${widths.map(w => '-'.repeat(w + 2)).join('|')}|`,
      ...rows.slice(1).map(line),
      'Targets: map ≥ 3× faster than Pillow, ≥ 10× faster than matplotlib.',
      peers.error ? `Peers not run: ${peers.error}` : '',
      `${CONCURRENT_RENDERS} concurrent renders through the render route: ${rss.done} done in ${rss.elapsed.toFixed(0)} ms; RSS ${mb(rss.before)} after warm-up, peak ${mb(rss.peak)}.`,
      `Samples in bench/out/. Total ${((performance.now() - started) / 1000).toFixed(1)} s.`
    ];
    process.stdout.write(`${out.filter(Boolean).join('\n')}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
