/**
 * PNG encoders for vision views (issue 13): the exact pixels of the three views of bench/vision.mjs
 * (a 4000×3000 JPEG with 50 marks, as a map, a close-up and a 9-tile sheet) encoded by sharp as
 * src/server/render/render.ts did (libpng + zlib-ng, level 2, adaptive filters), and by the other PNG
 * encoders that install from the npm registry with prebuilt binaries or as WASM or JavaScript. For each: median wall and CPU time over interleaved
 * rounds (every encoder once per round, so a loaded machine slows them alike), bytes, bytes against
 * Pillow's PNG of the same pixels at the same zlib level, and whether the PNG decodes back to the
 * same pixels. Ratios in one run, never timed tests.
 *
 * What it found (2026-12, 11 rounds, load average 9–12 on 2 cores, so read the CPU column): only
 * @napi-rs/image with `CompressionType.Fast` (the Rust png crate's fdeflate) beat libpng clearly,
 * by 6–10× in CPU, at 0.88–0.91× Pillow's bytes at level 2. Adaptive and Paeth filters cost and
 * deflate about the same; a single Up or Sub filter costs 1.25–1.6× the bytes. Its `Default`
 * compression is as slow as libpng, and its `fromRgbaPixels` writes RGBA, a sixth more bytes. The
 * WASM builds of that crate (@cf-wasm/png, @jsquash/png) were at most about 2× libpng in CPU, at
 * 1.0–1.4× Pillow's bytes on the map; node:zlib over rows filtered in JavaScript at most 1.7× in
 * CPU and slower in wall time, pako and fflate slower still, at 1.1× Pillow's bytes.
 * src/server/render/png-encode.ts uses @napi-rs/image Fast, Adaptive.
 *
 *   node bench/png-encoders.mjs [--rounds N] [--modules DIR]
 *
 * Candidates not in this checkout's node_modules are looked up in DIR (a folder holding a
 * node_modules, e.g. one made with `npm install @napi-rs/image @cf-wasm/png @jsquash/png fast-png
 * fflate pako` there) and skipped, with a line saying so, when absent. Python (for Pillow): as
 * bench/vision.mjs finds it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32, deflate, deflateSync } from 'node:zlib';

import { benchPicture, VIEW_SPECS } from './bench-picture.mjs';
import { loadSources, repo } from './load-sources.mjs';
import { table } from './table.mjs';

const argument = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const ROUNDS = Number(argument('--rounds', '11'));
const MODULES = argument('--modules', process.env.FIGURE_CHAT_BENCH_MODULES);

const fromRepo = createRequire(join(repo, 'package.json'));
const fromModules = MODULES ? createRequire(join(MODULES, 'package.json')) : undefined;

/** A candidate package from this checkout, else from --modules, else undefined. */
async function optional(name) {
  for (const req of [fromRepo, fromModules]) {
    if (!req) {
      continue;
    }
    let path;
    try {
      path = req.resolve(name);
    } catch {
      continue;
    }
    return { module: await import(pathToFileURL(path).href), path, req };
  }
  return undefined;
}

/** Each view's RGB pixels, exactly as the renderer composited them (its PNG decoded back). */
async function viewPixels(fc, sharp, work) {
  const { picture, record } = await benchPicture(fc, sharp, work);
  const specs = VIEW_SPECS;
  const views = {};
  for (const [name, spec] of Object.entries(specs)) {
    const view = await fc.renderView(picture, spec, record);
    const { data, info } = await sharp(view.bytes).raw().toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) {
      throw new Error(`the ${name} view decoded to ${info.channels} channels`);
    }
    views[name] = { data, width: info.width, height: info.height, rendered: view.bytes.length };
  }
  return views;
}

function rgba(raw) {
  const out = Buffer.alloc(raw.width * raw.height * 4, 255);
  for (let i = 0, j = 0; i < raw.data.length; i += 3, j += 4) {
    out[j] = raw.data[i];
    out[j + 1] = raw.data[i + 1];
    out[j + 2] = raw.data[i + 2];
  }
  return out;
}

/** A binary PPM of the pixels: the one RGB input @napi-rs/image's Transformer takes. */
function ppm(raw) {
  return Buffer.concat([Buffer.from(`P6\n${raw.width} ${raw.height}\n255\n`), raw.data]);
}

/**
 * Rows with PNG filter `up` (2) before each, or `sub` (1): what a zlib-only encoder gets to
 * deflate. Two simple filters in JavaScript, not libpng's per-row choice.
 */
function filtered(raw, kind) {
  const row = raw.width * 3;
  const out = Buffer.alloc((row + 1) * raw.height);
  const src = raw.data;
  for (let y = 0; y < raw.height; y++) {
    const o = y * (row + 1);
    const s = y * row;
    out[o] = kind === 'up' ? 2 : 1;
    for (let x = 0; x < row; x++) {
      const before = kind === 'up' ? (y ? src[s - row + x] : 0) : x >= 3 ? src[s + x - 3] : 0;
      out[o + 1 + x] = (src[s + x] - before) & 255;
    }
  }
  return out;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(type)) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG around one zlib stream of filtered RGB rows. */
function pngOf(raw, zlibStream) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(raw.width, 0);
  ihdr.writeUInt32BE(raw.height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.from(zlibStream)),
    chunk('IEND', Buffer.alloc(0))
  ]);
}

/** The encoders to compare, each `(raw) => Promise<Buffer>`, and the candidates not installed. */
async function encoders(sharp, level) {
  const list = {
    [`sharp level ${level}, adaptive (render.ts before)`]: raw =>
      sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 3 } })
        .png({ compressionLevel: level, adaptiveFiltering: true })
        .toBuffer(),
    'sharp level 1, no filter': raw =>
      sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 3 } })
        .png({ compressionLevel: 1 })
        .toBuffer()
  };
  const missing = [];
  const napi = await optional('@napi-rs/image');
  if (napi) {
    const { Transformer, CompressionType, FilterType } = napi.module.default ?? napi.module;
    const variants = [
      ['Fast', 'Adaptive'],
      ['Fast', 'Paeth'],
      ['Fast', 'Up'],
      ['Fast', 'Sub'],
      ['Fast', 'NoFilter'],
      ['Default', 'Adaptive']
    ];
    for (const [compression, filter] of variants) {
      const now = compression === 'Fast' && filter === 'Adaptive' ? ' (render.ts now)' : '';
      list[`@napi-rs/image ${compression}, ${filter}${now}`] = raw =>
        new Transformer(ppm(raw)).png({
          compressionType: CompressionType[compression],
          filterType: FilterType[filter]
        });
    }
    list['@napi-rs/image Fast, Adaptive, from RGBA'] = raw =>
      Transformer.fromRgbaPixels(rgba(raw), raw.width, raw.height).png({
        compressionType: CompressionType.Fast,
        filterType: FilterType.Adaptive
      });
  } else {
    missing.push('@napi-rs/image');
  }
  const cf = await optional('@cf-wasm/png');
  if (cf) {
    const { encode, ColorType, Compression, FilterType } = cf.module;
    for (const [compression, filter] of [
      ['Fast', 'Paeth'],
      ['Fast', 'Up'],
      ['Default', 'Paeth']
    ]) {
      list[`@cf-wasm/png (WASM) ${compression}, ${filter}`] = async raw =>
        Buffer.from(
          encode(raw.data, raw.width, raw.height, {
            color: ColorType.RGB,
            compression: Compression[compression],
            filter: FilterType[filter]
          })
        );
    }
  } else {
    missing.push('@cf-wasm/png');
  }
  const jsquash = await optional('@jsquash/png');
  if (jsquash) {
    const wasmPath = join(jsquash.path, '..', 'codec/pkg/squoosh_png_bg.wasm');
    const encodeModule = await import(pathToFileURL(join(jsquash.path, '..', 'encode.js')).href);
    await encodeModule.init(await WebAssembly.compile(readFileSync(wasmPath)));
    list['@jsquash/png (WASM, RGBA, its defaults)'] = async raw =>
      Buffer.from(
        await encodeModule.default({
          data: new Uint8ClampedArray(rgba(raw)),
          width: raw.width,
          height: raw.height
        })
      );
  } else {
    missing.push('@jsquash/png');
  }
  list[`node:zlib level ${level}, rows 'up' in JS`] = async raw =>
    pngOf(raw, deflateSync(filtered(raw, 'up'), { level }));
  list[`node:zlib level ${level}, rows 'sub' in JS`] = async raw =>
    pngOf(raw, deflateSync(filtered(raw, 'sub'), { level }));
  list[`node:zlib level ${level} on the pool, rows 'up' in JS`] = raw =>
    new Promise((resolve, reject) =>
      deflate(filtered(raw, 'up'), { level }, (error, out) =>
        error ? reject(error) : resolve(pngOf(raw, out))
      )
    );
  const fastPng = await optional('fast-png');
  if (fastPng) {
    list[`fast-png level ${level} (JS, pako)`] = async raw =>
      Buffer.from(
        fastPng.module.encode(
          { width: raw.width, height: raw.height, data: raw.data, channels: 3, depth: 8 },
          { zlib: { level } }
        )
      );
  } else {
    missing.push('fast-png');
  }
  const fflate = await optional('fflate');
  if (fflate) {
    list[`fflate level ${level} (JS), rows 'up'`] = async raw =>
      pngOf(raw, fflate.module.zlibSync(filtered(raw, 'up'), { level }));
  } else {
    missing.push('fflate');
  }
  const pako = await optional('pako');
  if (pako) {
    list[`pako level ${level} (JS), rows 'up'`] = async raw =>
      pngOf(raw, (pako.module.default ?? pako.module).deflate(filtered(raw, 'up'), { level }));
  } else {
    missing.push('pako');
  }
  return { list, missing };
}

function python() {
  return (
    [join(repo, '.venv/bin/python')].find(
      p => existsSync(p) && spawnSync(p, ['-c', 'import PIL']).status === 0
    ) ??
    process.env.FIGURE_CHAT_BENCH_PYTHON ??
    'python3'
  );
}

/** Pillow's PNG of each view's pixels at the given zlib levels: bytes and median encode time. */
function pillow(work, views, levels) {
  const job = Object.fromEntries(
    Object.entries(views).map(([name, raw]) => {
      const file = join(work, `${name}.rgb`);
      writeFileSync(file, raw.data);
      return [name, { file, width: raw.width, height: raw.height }];
    })
  );
  const script = `
import io, json, statistics, sys, time
from PIL import Image
job = json.load(sys.stdin)
out = {}
for name, view in job["views"].items():
    image = Image.frombytes("RGB", (view["width"], view["height"]), open(view["file"], "rb").read())
    out[name] = {}
    for level in job["levels"]:
        times = []
        for _ in range(job["rounds"]):
            buffer = io.BytesIO()
            start = time.perf_counter()
            image.save(buffer, "PNG", compress_level=level)
            times.append((time.perf_counter() - start) * 1000)
        out[name][str(level)] = {"bytes": len(buffer.getvalue()), "ms": statistics.median(times)}
json.dump(out, sys.stdout)
`;
  const interpreter = python();
  const result = spawnSync(interpreter, ['-c', script], {
    input: JSON.stringify({ views: job, levels, rounds: Math.max(5, Math.ceil(ROUNDS / 2)) }),
    encoding: 'utf8'
  });
  if (result.status !== 0) {
    return { error: `${interpreter}: ${result.stderr.trim().split('\n').pop()}` };
  }
  return JSON.parse(result.stdout);
}

const median = values => {
  const sorted = [...values].sort((a, b) => a - b);
  const m = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
};

async function main() {
  const started = performance.now();
  const fc = await loadSources('png-encoders', [
    "export * from './src/server/render/render';",
    "export * from './src/server/pictures/pictures';",
    "export * from './src/tools/vision';"
  ]);
  const sharp = fromRepo('sharp');
  const level = fc.PNG_COMPRESSION_LEVEL;
  const work = mkdtempSync(join(tmpdir(), 'fc-bench-png-'));
  try {
    const views = await viewPixels(fc, sharp, work);
    const { list, missing } = await encoders(sharp, level);
    const results = {};
    for (const name of Object.keys(views)) {
      results[name] = {};
      for (const [label, encode] of Object.entries(list)) {
        // One encode before the rounds: WASM compiles, pools start, and it is the PNG checked.
        const png = await encode(views[name]);
        const back = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        const same =
          back.info.width === views[name].width &&
          back.info.height === views[name].height &&
          back.data.equals(views[name].data);
        results[name][label] = { bytes: png.length, same, wall: [], cpu: [] };
      }
    }
    const loadBefore = loadavg();
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(views)) {
        for (const [label, encode] of Object.entries(list)) {
          const start = process.hrtime.bigint();
          const startCpu = process.cpuUsage();
          await encode(views[name]);
          const used = process.cpuUsage(startCpu);
          results[name][label].wall.push(Number(process.hrtime.bigint() - start) / 1e6);
          results[name][label].cpu.push((used.user + used.system) / 1000);
        }
      }
    }
    const loadAfter = loadavg();
    const peers = pillow(work, views, [1, level, 6]);
    const fmt = value => (value === undefined ? 'n/a' : value.toFixed(1));
    const kb = bytes => (bytes === undefined ? 'n/a' : `${(bytes / 1024).toFixed(0)} KiB`);
    const out = [
      `PNG encoders on the pixels of bench/vision.mjs's views (${ROUNDS} interleaved rounds; medians; the reference is sharp at level ${level} with adaptive filters, as src/server/render/render.ts encoded before; Pillow at the same level on the same pixels):`
    ];
    for (const [name, byEncoder] of Object.entries(results)) {
      const view = views[name];
      const reference = Object.values(byEncoder)[0];
      const refWall = median(reference.wall);
      const refCpu = median(reference.cpu);
      const pil = peers.error ? undefined : peers[name];
      const pilBytes = pil?.[String(level)]?.bytes;
      const rows = [
        [
          'encoder',
          'wall (ms)',
          'CPU (ms)',
          'sharp / it, wall',
          'sharp / it, CPU',
          'bytes',
          `/ Pillow L${level}`,
          'same pixels'
        ]
      ];
      for (const [label, r] of Object.entries(byEncoder)) {
        const wall = median(r.wall);
        const cpu = median(r.cpu);
        rows.push([
          label,
          fmt(wall),
          fmt(cpu),
          `${(refWall / wall).toFixed(2)}×`,
          `${(refCpu / cpu).toFixed(2)}×`,
          kb(r.bytes),
          pilBytes ? `${(r.bytes / pilBytes).toFixed(2)}×` : 'n/a',
          r.same ? 'yes' : 'NO'
        ]);
      }
      if (pil) {
        for (const [lvl, p] of Object.entries(pil)) {
          rows.push([
            `Pillow level ${lvl} (Python, for reference)`,
            fmt(p.ms),
            '',
            `${(refWall / p.ms).toFixed(2)}×`,
            '',
            kb(p.bytes),
            pilBytes ? `${(p.bytes / pilBytes).toFixed(2)}×` : 'n/a',
            'yes'
          ]);
        }
      }
      out.push(
        '',
        `${name}: ${view.width}×${view.height} RGB (${kb(view.data.length)} raw; the renderer's PNG ${kb(view.rendered)})`,
        ...table(rows)
      );
    }
    out.push(
      '',
      peers.error ? `Pillow not run: ${peers.error}` : null,
      missing.length
        ? `Not installed, so not measured: ${missing.join(', ')} (npm install them in a folder and pass --modules FOLDER).`
        : null,
      `Load average: ${loadBefore.map(v => v.toFixed(2)).join(' ')} before the rounds, ${loadAfter
        .map(v => v.toFixed(2))
        .join(
          ' '
        )} after, on ${availableParallelism()} cores; libvips ${sharp.concurrency()} threads.`,
      `Total ${((performance.now() - started) / 1000).toFixed(1)} s.`
    );
    process.stdout.write(`${out.filter(line => line !== null).join('\n')}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
