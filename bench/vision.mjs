/**
 * Vision rendering benchmark (SPEC 13): a generated 4000×3000 JPEG with 50 marks, drawn as a map
 * (≤ 1024 px), a close-up and a 9-tile sheet by Figure Chat (sharp + resvg) and by the same
 * drawing in Pillow and matplotlib (bench/vision_peers.py). Reports, all measured in one run:
 * - cold medians (caches emptied before every render) and ratios to the peers;
 * - each view's distance from a floor: a bare sharp decode at the view's scale plus a bare PNG
 *   encode of its output, and the overlay's rasterization on its own;
 * - repeated views: another view of the same picture (decode cached, one mark moved since any
 *   view drawn before), and the same view again;
 * - bytes: our PNG against Pillow's PNG of the same pixels at the same zlib level, and the
 *   encodings measured for the model (JPEG, WebP), with the one chosen and why;
 * - memory, in a child process with the figure server's allocator environment: peak RSS of 20
 *   concurrent renders, and RSS 10 s after a burst of 300, against idle;
 * - what is within reach: the floor against a third of Pillow's time, the JPEG's entropy decode
 *   (one thread, whatever the renderer) against that budget, and for repeated views what no
 *   cache can spare (a new view's pixels are new: its overlay, the panes whose region follows the
 *   moved mark resampled, its PNG) against a quarter of the cold view.
 * Ours are timed in the figure server's allocator environment (./server-env.mjs: the script runs
 * itself again in it), the peers in their default one. Ratios, never timed tests.
 *
 *   node bench/vision.mjs [--quick]
 *
 * Python: /work/main/.venv/bin/python (or the repo's .venv) if present, else FIGURE_CHAT_BENCH_PYTHON,
 * else python3; it needs Pillow, NumPy and matplotlib.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  benchPicture,
  fiftyMarks,
  H,
  makePicture,
  VIEW_SPECS,
  W,
  withSevenMoved
} from './bench-picture.mjs';
import { loadSources, repo } from './load-sources.mjs';
import {
  pythonInterpreter,
  rerunAsServer,
  serverAllocatorEnv,
  serverEnvLine,
  withoutServerAllocator
} from './server-env.mjs';
import { table } from './table.mjs';

const requireFromRepo = createRequire(join(repo, 'package.json'));
const quick = process.argv.includes('--quick');
const ITERATIONS = { ours: quick ? 5 : 25, pillow: quick ? 3 : 12, matplotlib: quick ? 2 : 5 };
const CONCURRENT_RENDERS = 20;

/** The render and vision modules, bundled from the TypeScript, and sharp from this checkout. */
async function loadFigureChat() {
  const fc = await loadSources('vision', [
    "export * from './src/server/render/render';",
    "export * from './src/server/render/enlarge';",
    "export * from './src/server/render/png-encode';",
    "export * from './src/server/render/route';",
    "export * from './src/server/pictures/pictures';",
    "export * from './src/tools/vision';"
  ]);
  return { fc, sharp: requireFromRepo('sharp') };
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

function runPeers(job) {
  const python = pythonInterpreter();
  const result = spawnSync(python, [join(repo, 'bench/vision_peers.py')], {
    input: JSON.stringify(job),
    env: withoutServerAllocator(process.env),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    // Generous: on a shared, loaded machine matplotlib alone can take minutes.
    timeout: 900_000
  });
  if (result.status !== 0) {
    return {
      error: `${python}: ${(result.stderr || result.error?.message || '').trim().split('\n').pop()}`
    };
  }
  return { timings: JSON.parse(result.stdout) };
}

const BURST_RENDERS = 300;
const SETTLE_MS = 10_000;

const rssMb = () => process.memoryUsage().rss / 1024 / 1024;

/**
 * Start counting the peak RSS afresh: Linux resets this process's high-water mark (VmHWM) when
 * "5" is written to clear_refs. Without it the peak would be the process's whole life, and on
 * Linux that includes the parent's: a spawned child's getrusage maxRSS starts at what the
 * benchmark's own process had reached when it forked (measured: 370 MB before the child had
 * rendered anything), which is how earlier runs reported peaks of 363–413 MB.
 */
function resetPeakRss() {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** The peak RSS in MB since `resetPeakRss` (VmHWM), or the process's lifetime peak without it. */
function peakRssMb(reset) {
  if (reset) {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) {
      return Number(hwm[1]) / 1024;
    }
  }
  return process.resourceUsage().maxRSS / 1024;
}
const sleep = ms => new Promise(resolveSleep => setTimeout(resolveSleep, ms));

/**
 * Memory of the render route in a fresh process, so nothing else counts: idle (after one render of
 * each kind), the peak of 20 concurrent renders, and RSS 10 s after a burst of 300 (in waves of 20,
 * the view cache emptied before each so every render draws).
 */
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
  for (let i = 0; i < 3; i++) {
    await fc.renderRoute(body(i), ctx);
  }
  fc.clearRenderCaches('views');
  // At rest: the render queue's collection when idle (1 s) has run.
  await sleep(2500);
  const idle = rssMb();
  const reset = resetPeakRss();
  const start = performance.now();
  const answers = await Promise.all(
    Array.from({ length: CONCURRENT_RENDERS }, (_, i) => fc.renderRoute(body(i), ctx))
  );
  const elapsed = performance.now() - start;
  const peak = peakRssMb(reset);
  let done = 0;
  for (let wave = 0; done < BURST_RENDERS; wave++) {
    fc.clearRenderCaches('views');
    const size = Math.min(CONCURRENT_RENDERS, BURST_RENDERS - done);
    await Promise.all(Array.from({ length: size }, (_, i) => fc.renderRoute(body(wave + i), ctx)));
    done += size;
  }
  const afterBurst = rssMb();
  await sleep(SETTLE_MS);
  const settled = rssMb();
  const { external, heapUsed } = process.memoryUsage();
  process.stdout.write(
    JSON.stringify({
      idle,
      peakSince: reset ? 'the 20 renders began (VmHWM reset)' : 'the process started (maxRSS)',
      peak,
      done: answers.length,
      elapsed,
      afterBurst,
      settled,
      external: external / 1048576,
      heapUsed: heapUsed / 1048576,
      cache: fc.renderCacheStats()
    })
  );
}

async function measureRss(root, env) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--rss-child', root], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env }
  });
  let out = '';
  child.stdout.on('data', chunk => (out += chunk));
  await new Promise(resolveExit => child.on('exit', resolveExit));
  return JSON.parse(out);
}

/**
 * Median time of `run` after `prepare` (not timed) before each run: wall clock, and CPU time of the
 * whole process (every thread: libvips', resvg's and the main one), which other processes on a
 * shared machine stretch far less than the wall clock.
 */
async function medianTimes(iterations, prepare, run) {
  prepare();
  await run();
  const times = [];
  const cpu = [];
  for (let i = 0; i < iterations; i++) {
    prepare();
    const start = process.hrtime.bigint();
    const startCpu = process.cpuUsage();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / 1000);
  }
  const mid = values => {
    values.sort((a, b) => a - b);
    const m = Math.floor(values.length / 2);
    return values.length % 2 ? values[m] : (values[m - 1] + values[m]) / 2;
  };
  return { wall: mid(times), cpu: mid(cpu) };
}

/** Median wall time of `run` after `prepare` (not timed) before each run. */
async function medianPrepared(iterations, prepare, run) {
  return (await medianTimes(iterations, prepare, run)).wall;
}

/**
 * libvips' resize kernel of a pane, as src/server/render/decode.ts chooses it (smooth enlargements
 * are src/server/render/enlarge.ts's Catmull-Rom).
 */
function kernelOf(fc, pane) {
  return fc.paneSampling(pane) === 'pixel-grid' ? 'nearest' : 'lanczos3';
}

/**
 * A view's floor and stages in this run, each a median of wall and CPU time:
 * - decode: a bare sharp decode of what the view needs: for a map, the whole picture at the
 *   smallest JPEG scale that still covers the pane (shrink-on-load); for a close-up or a sheet, the
 *   band of rows its panes show, at full size (the rows above are skipped, not inverse-transformed);
 * - full decode: the whole picture at full size, what close-ups and sheets decoded before;
 * - resize: that decode plus the resize to the panes, as the renderer does it;
 * - overlay: the overlay drawn (SVG, glyph outlines) and rasterized by resvg, on its own, in
 *   parts as the renderer draws it (a sheet's tile by tile, a map's or close-up's on canvases as
 *   large as its marks and labels);
 * - encode: a bare PNG encode of the view's pixels by the renderer's encoder (./png-encode);
 * - moved: the resampling, from decoded rows already in memory, of the panes `moved` (those whose
 *   region follows mark #7, so another view with #7 moved must resample them again), as the
 *   renderer does it; none for a map, whose whole-picture pane is kept at its size.
 * The floor is decode + encode: the least any renderer of this view with libvips can do.
 */
async function stagesOf(fc, overlay, sharp, jpeg, view, moved) {
  const { picture, spec, record, raw } = view;
  const geometry = fc.viewGeometry(spec, record, picture);
  const time = run => medianTimes(ITERATIONS.ours, () => undefined, run);
  const partsOf = (g, r) =>
    g.kind === 'sheet' ? overlay.sheetOverlayParts(g, r) : overlay.paneOverlayParts(g, r);
  const { panes } = geometry;
  const [first] = panes;
  const region = first.region;
  const whole =
    panes.length === 1 && region.x0 === 0 && region.y0 === 0 && region.x1 === W && region.y1 === H;
  let decode;
  let resize;
  /** The moved panes resampled; a map's whole-picture pane is kept at its size. */
  let resampleMoved = async () => undefined;
  if (whole) {
    const scale = [8, 4, 2, 1].find(
      s => Math.ceil(W / s) >= first.width && Math.ceil(H / s) >= first.height
    );
    decode = () =>
      sharp(jpeg)
        .resize(Math.ceil(W / scale), Math.ceil(H / scale), { kernel: 'nearest' })
        .raw()
        .toBuffer();
    resize = () =>
      sharp(jpeg)
        .resize(first.width, first.height, { fit: 'fill', kernel: kernelOf(fc, first) })
        .raw()
        .toBuffer();
  } else {
    const top = Math.min(...panes.map(pane => pane.region.y0));
    const bottom = Math.max(...panes.map(pane => pane.region.y1));
    const band = { width: W, height: bottom - top, channels: 3 };
    decode = () =>
      sharp(jpeg).extract({ left: 0, top, width: W, height: band.height }).raw().toBuffer();
    const resample = (rows, some) =>
      Promise.all(
        some.map(pane => {
          const rect = {
            left: pane.region.x0,
            top: pane.region.y0 - top,
            width: pane.region.x1 - pane.region.x0,
            height: pane.region.y1 - pane.region.y0
          };
          // Smooth enlargements by src/server/render/enlarge.ts, the rest by libvips, as the renderer.
          return fc.paneSampling(pane) === 'smooth'
            ? fc.enlargeSmooth({ data: rows, raw: band }, rect, pane.width, pane.height)
            : sharp(rows, { raw: band })
                .extract(rect)
                .resize(pane.width, pane.height, { fit: 'fill', kernel: kernelOf(fc, pane) })
                .raw()
                .toBuffer();
        })
      );
    resize = async () => resample(await decode(), panes);
    const rows = await decode();
    resampleMoved = () => resample(rows, moved);
  }
  return {
    decode: await time(decode),
    fullDecode: await time(() => sharp(jpeg).raw().toBuffer()),
    resize: await time(resize),
    // As the renderer draws it: in parts, a sheet's tile by tile, any other's on canvases as
    // large as its marks and labels.
    // Cold: the labels' outlines and the canvases' layers the renderer keeps are forgotten first.
    overlay: await medianTimes(ITERATIONS.ours, overlay.forgetOverlays ?? (() => undefined), () =>
      overlay.rasterizeOverlayParts(partsOf(geometry, record))
    ),
    encode: await time(() => fc.encodePng({ data: raw.data, raw: raw.info })),
    moved: await time(resampleMoved),
    // A repeated view's overlay: the view's own drawn and kept first, then each time mark #7
    // moved further, so only the canvases it touches (and, where the region follows it, the
    // rulers) are new, as in the repeated views above.
    overlayMoved: await (async () => {
      overlay.forgetOverlays?.();
      await overlay.rasterizeOverlayParts(partsOf(geometry, record));
      // Past every move the repeated views above made, so no canvas drawn here was kept.
      let by = 1000;
      return time(() => {
        const next = withSevenMoved(record, ++by);
        const view = fc.viewGeometry(spec, next, picture);
        return overlay.rasterizeOverlayParts(partsOf(view, next));
      });
    })()
  };
}

/** Encodings measured for a view's pixels: bytes and median encode time. */
async function encodings(fc, sharp, raw) {
  const viaSharp = make => () => make(sharp(raw.data, { raw: raw.info })).toBuffer();
  // The renderer's PNG second, the model's JPEG third, WebP fifth: the tables below read them so.
  const candidates = {
    'PNG level 1, no filters (libpng in sharp)': viaSharp(img => img.png({ compressionLevel: 1 })),
    'PNG (render.ts: @napi-rs/image, fast deflate, adaptive filters)': () =>
      fc.encodePng({ data: raw.data, raw: raw.info }),
    [`JPEG q${fc.MODEL_JPEG.quality} ${fc.MODEL_JPEG.chromaSubsampling}`]: viaSharp(img =>
      img.jpeg(fc.MODEL_JPEG)
    ),
    'JPEG q85 4:2:0': viaSharp(img => img.jpeg({ quality: 85, chromaSubsampling: '4:2:0' })),
    'WebP q80': viaSharp(img => img.webp({ quality: 80 })),
    [`PNG level ${fc.PNG_COMPRESSION_LEVEL}, adaptive filters (libpng in sharp, before)`]: viaSharp(
      img => img.png({ compressionLevel: fc.PNG_COMPRESSION_LEVEL, adaptiveFiltering: true })
    )
  };
  const out = {};
  for (const [label, encode] of Object.entries(candidates)) {
    const bytes = (await encode()).length;
    const ms = await median(Math.ceil(ITERATIONS.ours / 3), encode);
    out[label] = { bytes, ms };
  }
  return out;
}

async function main() {
  if (process.argv[2] === '--rss-child') {
    await rssChild(process.argv[3]);
    return;
  }
  if (process.argv[2] === '--memory') {
    // The memory part alone, with the environment given (KEY=VALUE arguments) or the server's.
    const { sharp } = await loadFigureChat();
    const work = mkdtempSync(join(tmpdir(), 'fc-bench-vision-'));
    const pairs = process.argv.slice(3).map(arg => arg.split('='));
    writeFileSync(join(work, 'picture.jpg'), await makePicture(sharp));
    const env = pairs.length ? Object.fromEntries(pairs) : serverAllocatorEnv();
    process.stdout.write(`${JSON.stringify({ env, ...(await measureRss(work, env)) })}\n`);
    rmSync(work, { recursive: true, force: true });
    return;
  }
  const rerun = rerunAsServer();
  if (rerun !== undefined) {
    process.exitCode = rerun;
    return;
  }
  const started = performance.now();
  const { fc, sharp } = await loadFigureChat();
  const overlay = await loadSources('vision-overlay', [
    "export * from './src/server/render/overlay';",
    "export * from './src/tools/vision';"
  ]);
  const work = mkdtempSync(join(tmpdir(), 'fc-bench-vision-'));
  try {
    const { jpeg, picture, record } = await benchPicture(fc, sharp, work);
    const specs = VIEW_SPECS;
    // The JPEG's entropy (Huffman) decode alone: a decode at 1/8 scale inverse-transforms one
    // coefficient per block, so it is nearly all entropy decoding, which is serial in the file.
    const entropy = await medianTimes(
      ITERATIONS.ours,
      () => undefined,
      () =>
        sharp(jpeg)
          .resize(Math.ceil(W / 8), Math.ceil(H / 8), { kernel: 'nearest' })
          .raw()
          .toBuffer()
    );
    // The most an overlap of decode and encode could give the map: one libvips pipeline from the
    // JPEG to the PNG (the write-behind thread encodes strips as they are decoded), without the
    // overlay, which such a pipeline would have to composite in libvips.
    const mapGeometry = fc.viewGeometry({ kind: 'map' }, record, picture);
    const mapPane = mapGeometry.panes[0];
    const pipelined = await medianTimes(
      ITERATIONS.ours,
      () => undefined,
      () =>
        sharp(jpeg)
          .resize(mapPane.width, mapPane.height, { fit: 'fill', kernel: kernelOf(fc, mapPane) })
          .extend({
            top: mapPane.top,
            left: mapPane.left,
            right: mapGeometry.width - mapPane.left - mapPane.width,
            bottom: mapGeometry.height - mapPane.top - mapPane.height,
            background: fc.MARGIN_BACKGROUND
          })
          .png({ compressionLevel: fc.PNG_COMPRESSION_LEVEL, adaptiveFiltering: true })
          .toBuffer()
    );
    const samples = join(repo, 'bench/out');
    mkdirSync(samples, { recursive: true });
    const ours = {};
    const stages = {};
    /** Pixels mark #7 has moved by in the repeated views so far (see `another`). */
    let moved = 0;
    /** The panes of a view whose region follows mark #7: a view with #7 moved resamples them. */
    const movedPanes = spec => {
      const after = fc.viewGeometry(spec, withSevenMoved(record, 1), picture).panes;
      return fc
        .viewGeometry(spec, record, picture)
        .panes.filter((pane, i) => JSON.stringify(pane.region) !== JSON.stringify(after[i].region));
    };
    for (const [name, spec] of Object.entries(specs)) {
      const render = () => fc.renderView(picture, spec, record);
      const { wall: cold, cpu: coldCpu } = await medianTimes(
        ITERATIONS.ours,
        () => fc.clearRenderCaches(),
        render
      );
      // Another view of the same picture, as a conversation's next call draws it: the decode
      // is cached, the view is not, and mark #7 (in every view here) has moved a pixel further
      // than in any view drawn before, so no view's overlay is one drawn already.
      let next = record;
      const another = () => {
        fc.clearRenderCaches('views');
        moved += 1;
        next = withSevenMoved(record, moved);
      };
      const { wall: repeated, cpu: repeatedCpu } = await medianTimes(ITERATIONS.ours, another, () =>
        fc.renderView(picture, spec, next)
      );
      // Another view of the picture: the same spec with one more mark, somewhere new each time,
      // mostly outside the close-up and the sheet's tiles (their overlays' canvases are kept).
      let added = 0;
      const { wall: oneMore, cpu: oneMoreCpu } = await medianTimes(
        ITERATIONS.ours,
        () => fc.clearRenderCaches('views'),
        () => {
          const n = added++;
          const marks = [{ at: `${300 + 37 * n},${500 + 23 * n}`, r: 30 }];
          const more = fc.applyMarkArgs(record, { marks }, { width: W, height: H }).record;
          return fc.renderView(picture, spec, more);
        }
      );
      const same = await medianPrepared(ITERATIONS.ours, () => undefined, render);
      const renderModel = () => fc.renderView(picture, spec, record, { format: 'model' });
      const modelCold = await medianPrepared(
        ITERATIONS.ours,
        () => fc.clearRenderCaches(),
        renderModel
      );
      const modelRepeated = await medianPrepared(ITERATIONS.ours, another, () =>
        fc.renderView(picture, spec, next, { format: 'model' })
      );
      fc.clearRenderCaches();
      const view = await render();
      writeFileSync(join(samples, `ours-${name}.png`), view.bytes);
      const raw = await sharp(view.bytes).raw().toBuffer({ resolveWithObject: true });
      ours[name] = {
        cold,
        coldCpu,
        repeated,
        repeatedCpu,
        oneMore,
        oneMoreCpu,
        same,
        modelCold,
        modelRepeated
      };
      stages[name] = {
        ...(await stagesOf(
          fc,
          overlay,
          sharp,
          jpeg,
          { picture, spec, record, raw },
          movedPanes(spec)
        )),
        encodings: await encodings(fc, sharp, raw),
        modelBytes: (await fc.renderView(picture, spec, record, { format: 'model' })).bytes.length
      };
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
      jpegQuality: fc.MODEL_JPEG.quality,
      iterations: ITERATIONS,
      samples,
      views
    });
    const serverEnv = serverAllocatorEnv();
    const rss = await measureRss(work, serverEnv);
    const rssDefault = quick ? undefined : await measureRss(work, { NODE_OPTIONS: '' });
    const fmt = value => (value === undefined ? 'n/a' : value.toFixed(1));
    const ratio = (a, b) => (a === undefined || b === undefined ? 'n/a' : `${(a / b).toFixed(2)}×`);
    const kb = bytes => (bytes === undefined ? 'n/a' : `${(bytes / 1024).toFixed(0)} KiB`);
    const speed = [
      [
        'view',
        'ours cold (ms)',
        'Pillow (ms)',
        'matplotlib (ms)',
        'Pillow / ours',
        'matplotlib / ours',
        'ours CPU (ms)',
        'Pillow CPU (ms)',
        'Pillow / ours, CPU'
      ]
    ];
    const model = [
      [
        'view',
        'ours cold (ms)',
        'Pillow, same JPEG (ms)',
        'Pillow / ours',
        'other view, decode cached',
        '/ cold'
      ]
    ];
    const floor = [
      [
        'view',
        'ours cold',
        'decode (what the view needs)',
        '+ resize',
        'full decode',
        'overlay (draw + rasterize)',
        'PNG encode',
        'floor',
        'ours / floor',
        'CPU: ours',
        'CPU: floor',
        'ours / floor, CPU'
      ]
    ];
    const repeat = [
      [
        'view',
        'cold (ms)',
        'another view (#7 moved)',
        '/ cold',
        'one mark added elsewhere',
        '/ cold',
        'same view again',
        '/ cold',
        'another view / cold, CPU',
        'mark added elsewhere / cold, CPU'
      ]
    ];
    const bytes = [
      [
        'view',
        'ours PNG',
        'Pillow, same pixels',
        'ours / Pillow',
        "Pillow's own drawing",
        'model',
        'model / PNG before (libpng)'
      ]
    ];
    const reach = [
      [
        'view',
        'Pillow',
        '3× target',
        'our floor',
        'Pillow / floor',
        'Pillow decode',
        'Pillow PNG encode, our pixels',
        'our PNG encode',
        'entropy decode / 3× target',
        'Pillow / floor, CPU'
      ]
    ];
    const repeatReach = [
      [
        'view',
        'cold',
        'PNG encode of the view',
        'overlay, #7 moved',
        'resample of the panes that follow #7',
        'least possible',
        'least possible / cold',
        'least possible / cold, CPU',
        'target',
        'reachable'
      ]
    ];
    const encodingLines = [];
    for (const name of Object.keys(specs)) {
      const p = peers.timings?.[name];
      const o = ours[name];
      const st = stages[name];
      speed.push([
        name,
        fmt(o.cold),
        fmt(p?.pillow),
        fmt(p?.matplotlib),
        ratio(p?.pillow, o.cold),
        ratio(p?.matplotlib, o.cold),
        fmt(o.coldCpu),
        fmt(p?.pillowCpu),
        ratio(p?.pillowCpu, o.coldCpu)
      ]);
      model.push([
        name,
        fmt(o.modelCold),
        fmt(p?.pillowJpeg),
        ratio(p?.pillowJpeg, o.modelCold),
        fmt(o.modelRepeated),
        ratio(o.modelRepeated, o.modelCold)
      ]);
      const f = st.decode.wall + st.encode.wall;
      const fCpu = st.decode.cpu + st.encode.cpu;
      floor.push([
        name,
        fmt(o.cold),
        fmt(st.decode.wall),
        fmt(st.resize.wall),
        fmt(st.fullDecode.wall),
        fmt(st.overlay.wall),
        fmt(st.encode.wall),
        fmt(f),
        ratio(o.cold, f),
        fmt(o.coldCpu),
        fmt(fCpu),
        ratio(o.coldCpu, fCpu)
      ]);
      repeat.push([
        name,
        fmt(o.cold),
        fmt(o.repeated),
        ratio(o.repeated, o.cold),
        fmt(o.oneMore),
        ratio(o.oneMore, o.cold),
        fmt(o.same),
        ratio(o.same, o.cold),
        ratio(o.repeatedCpu, o.coldCpu),
        ratio(o.oneMoreCpu, o.coldCpu)
      ]);
      reach.push([
        name,
        fmt(p?.pillow),
        fmt(p?.pillow && p.pillow / 3),
        fmt(f),
        ratio(p?.pillow, f),
        fmt(p?.pillowDecode),
        fmt(p?.pillowEncode),
        fmt(st.encode.wall),
        ratio(entropy.wall, p?.pillow && p.pillow / 3),
        ratio(p?.pillowCpu, fCpu)
      ]);
      // What no cache of the picture can spare another view with #7 moved: its overlay, the
      // panes whose region follows #7 resampled (the two side by side, as the renderer runs
      // them), then its PNG.
      const leastWall = Math.max(st.overlayMoved.wall, st.moved.wall) + st.encode.wall;
      const leastCpu = st.overlayMoved.cpu + st.moved.cpu + st.encode.cpu;
      repeatReach.push([
        name,
        fmt(o.cold),
        fmt(st.encode.wall),
        fmt(st.overlayMoved.wall),
        fmt(st.moved.wall),
        fmt(leastWall),
        ratio(leastWall, o.cold),
        ratio(leastCpu, o.coldCpu),
        '0.25×',
        leastWall <= o.cold / 4 ? 'yes' : 'no'
      ]);
      const encoded = Object.entries(st.encodings);
      // The PNG is what the chat shows, and what it sent the model before the compact copy.
      const png = encoded[1][1].bytes;
      bytes.push([
        name,
        kb(png),
        kb(p?.samePixels),
        ratio(png, p?.samePixels),
        kb(p?.ownBytes),
        kb(st.modelBytes),
        // What the model used to get was libpng's PNG: the target is a quarter of that.
        ratio(st.modelBytes, encoded[5][1].bytes)
      ]);
      // The model gets JPEG 4:4:4: under a quarter of the PNG's bytes and faster to encode than
      // it; 4:2:0 is smaller but blurs thin coloured strokes (render.test.ts reads them), and WebP,
      // smaller again, is not read by llama.cpp. Said per view with this run's numbers.
      const pngMs = encoded[1][1].ms;
      const [chosen, jpegE] = encoded[2];
      const [, webpE] = encoded[4];
      encodingLines.push(
        `  ${name}: ${encoded.map(([label, e]) => `${label} ${kb(e.bytes)} in ${fmt(e.ms)} ms`).join('; ')}`,
        `    → for the model: ${chosen}, ${ratio(png, jpegE.bytes)} fewer bytes than the PNG, encoded ${ratio(pngMs, jpegE.ms)} faster than the PNG (WebP would save ${kb(jpegE.bytes - webpE.bytes)} more, in ${ratio(webpE.ms, jpegE.ms)} the time)`
      );
    }
    const mb = value => `${value.toFixed(0)} MB`;
    const memory = r =>
      `idle ${mb(r.idle)}; ${CONCURRENT_RENDERS} concurrent renders: ${r.done} done in ${r.elapsed.toFixed(0)} ms, peak RSS ${mb(r.peak)} (since ${r.peakSince}); ` +
      `after a burst of ${BURST_RENDERS}: ${mb(r.afterBurst)}, 10 s later ${mb(r.settled)} (${(r.settled / r.idle).toFixed(2)}× idle); ` +
      `decoded cache ${mb(r.cache.decoded.bytes / 1048576)} (peak ${mb(r.cache.decoded.peak / 1048576)} of ${mb(r.cache.decoded.limit / 1048576)})`;
    const out = [
      `Vision views of a ${W}×${H} JPEG with 50 marks (medians; ours ${ITERATIONS.ours} runs, Pillow ${ITERATIONS.pillow}, matplotlib ${ITERATIONS.matplotlib}; Pillow's and matplotlib's PNGs at zlib level ${fc.PNG_COMPRESSION_LEVEL}, ours by @napi-rs/image's fast deflate)`,
      serverEnvLine(),
      'Cold (caches emptied before every render):',
      ...table(speed),
      'Targets: each ≥ 3× faster than Pillow; the map ≥ 10× faster than matplotlib. CPU: time on all threads of each process (ours overlaps decode and overlay on two threads), which a loaded machine stretches less than the wall clock.',
      `Load average during the run: ${loadavg()
        .map(value => value.toFixed(1))
        .join(' ')} on ${availableParallelism()} cores.`,
      peers.error ? `Peers not run: ${peers.error}` : '',
      `The same views encoded for the model (JPEG q${fc.MODEL_JPEG.quality} ${fc.MODEL_JPEG.chromaSubsampling}, both sides):`,
      ...table(model),
      "Stages and distance from the floor (wall ms unless CPU; floor = a bare sharp decode of what the view needs + a bare PNG encode of its output; '+ resize' includes the decode; the overlay rasterizes alongside the decode):",
      ...table(floor),
      `What is within reach (wall ms; libvips ${sharp.concurrency()} threads per render, as the figure server runs it). A PNG is one zlib stream, written after the overlay is composited over the decoded view: a decode then an encode, each at its floor, is the least our renderer can take. Where Pillow / floor is under 3×, 3× would need an encode that overlaps the decode or runs on both cores, which sharp cannot do with the overlay composited in JavaScript (measured: libvips' own composite costs more than the overlap saves, and a zlib stream split in halves through node:zlib, with the rows filtered in JavaScript, was slower than libvips' one encode). The JPEG's entropy decode alone, serial whatever the renderer, takes ${fmt(entropy.wall)} ms (CPU ${fmt(entropy.cpu)}) for the whole picture:`,
      ...table(reach),
      `The most overlapping the map's decode and encode could give: one libvips pipeline from the JPEG to the PNG, without the overlay, takes ${fmt(pipelined.wall)} ms (CPU ${fmt(pipelined.cpu)}), against the map's floor of ${fmt(stages.map.decode.wall + stages.map.encode.wall)} ms; with the overlay composited by libvips in that pipeline it was slower than today's renderer.`,
      "Repeated views of the same picture (target ≤ 1/4 of the first), the decode cached: another view, mark #7 (in every view) moved further each time, so no view's overlay was drawn before, and the same spec with one mark added somewhere new each time, mostly outside the close-up and the sheet's tiles, whose overlay canvases the renderer then keeps (that cache at its best):",
      ...table(repeat),
      "A repeated view decodes nothing, but its pixels are new: it draws and rasterizes its own overlay (resvg), resamples the panes whose region follows the moved mark (a close-up's whole pane, a sheet's tile), and encodes its own PNG. Those set how low it can go, each at its floor in this run (wall ms; the overlay and the resampling side by side):",
      ...table(repeatReach),
      'Bytes per view (target: ours ≤ Pillow with the same pixels at the same level; the model ≤ 1/4 of the PNG it used to get):',
      ...table(bytes),
      'Encodings measured per view (bytes, median encode time):',
      ...encodingLines,
      `Memory with ${Object.entries(serverEnv)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} (the figure server's): ${memory(rss)}.`,
      rssDefault
        ? `Memory as before (glibc's defaults, no collection when idle): ${memory(rssDefault)}.`
        : '',
      'Targets: peak ≤ 400 MB; 10 s after the burst ≤ 1.5× idle.',
      `Samples in bench/out/. Total ${((performance.now() - started) / 1000).toFixed(1)} s.`
    ];
    process.stdout.write(`${out.filter(Boolean).join('\n')}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
