#!/usr/bin/env node
/**
 * Model-proxy benchmark (SPEC section 13, "proxy overhead on streaming"): a fake OpenAI-compatible
 * endpoint streams N small SSE chunks, read with `fetch` directly and through the figure server's
 * `model` route. Run: `node bench/proxy.mjs` (about 10 s). Reported as ratios.
 *
 * - lock-step: the endpoint writes chunk i+1 only once the client has read chunk i, so each
 *   chunk's latency (endpoint write → client read) is measured alone; any buffering in the proxy
 *   would stall this mode outright.
 * - burst: the endpoint writes all chunks at once; time from the request to the first chunk (the
 *   proxy opens its own upstream connection), to each chunk (median of the per-chunk differences,
 *   paired run by run) and to the end of the stream.
 *
 * `src/server/app.ts` is bundled on the fly with esbuild (native packages stay external).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadSources } from './load-sources.mjs';

const N = 2000;
const RUNS = 9;

function load() {
  return loadSources('proxy-app', ["export * from './src/server/app';"]);
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function chunk(i) {
  return `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tok${i}"},"finish_reason":null}]}\n\n`;
}
const LAST =
  'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

/** The run in progress: the endpoint writes, the client reads, both stamp times here. */
let run = null;

function startRun(mode) {
  let wake = null;
  run = {
    mode,
    written: new Array(N),
    read: new Array(N),
    count: 0,
    /** Resolves once the client has read `n` chunks. */
    until(n) {
      return this.count >= n ? Promise.resolve() : new Promise(resolve => (wake = { n, resolve }));
    },
    onRead(n, time) {
      for (let i = this.count; i < Math.min(n, N); i++) {
        this.read[i] = time;
      }
      this.count = n;
      if (wake && n >= wake.n) {
        const { resolve } = wake;
        wake = null;
        resolve();
      }
    }
  };
  return run;
}

const endpoint = createServer((req, res) => {
  req.resume();
  req.on('end', async () => {
    const current = run;
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.flushHeaders();
    for (let i = 0; i < N; i++) {
      current.written[i] = now();
      const ok = res.write(chunk(i));
      if (current.mode === 'lock-step') {
        await current.until(i + 1);
      } else if (!ok) {
        await new Promise(resolve => res.once('drain', resolve));
      }
    }
    res.end(LAST);
  });
});

async function listen(server) {
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

/** One streamed request; returns per-chunk arrival times (relative to the request) and latencies. */
async function stream(url, body, mode) {
  const current = startRun(mode);
  const start = now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify(body)
  });
  if (!response.ok) {
    throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let events = 0;
  let tail = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    const text = tail + decoder.decode(value, { stream: true });
    const parts = text.split('\n\n');
    tail = parts.pop();
    events += parts.length;
    current.onRead(events, now());
  }
  const total = now() - start;
  if (events !== N + 2) {
    throw new Error(`expected ${N + 2} events, got ${events}`);
  }
  return {
    total,
    arrival: current.read.map(time => time - start),
    latency: current.read.map((time, i) => time - current.written[i])
  };
}

const { createFigureServer } = await load();
const workspace = mkdtempSync(join(tmpdir(), 'figure-chat-bench-'));
const figure = createFigureServer({ root: workspace, hideHidden: true });
const [endpointUrl, figureUrl] = await Promise.all([listen(endpoint), listen(figure)]);
const chatBody = { model: 'bench', stream: true, messages: [{ role: 'user', content: 'go' }] };
const contenders = {
  direct: mode => stream(`${endpointUrl}/v1/chat/completions`, chatBody, mode),
  proxy: mode =>
    stream(
      `${figureUrl}/figure-chat/model`,
      { endpoint: `${endpointUrl}/v1`, body: chatBody },
      mode
    )
};

const began = now();
const results = { 'lock-step': { direct: [], proxy: [] }, burst: { direct: [], proxy: [] } };
for (const mode of Object.keys(results)) {
  await contenders.direct(mode);
  await contenders.proxy(mode);
  // Interleave so drift (GC, CPU frequency) hits both alike.
  for (let i = 0; i < RUNS; i++) {
    for (const name of ['direct', 'proxy']) {
      results[mode][name].push(await contenders[name](mode));
    }
  }
}

const ms = value => `${value.toFixed(3)} ms`;
const us = value => `${(value * 1000).toFixed(2)} µs`;
const rows = [];
{
  const { direct, proxy } = results['lock-step'];
  const d = median(direct.map(r => median(r.latency)));
  const p = median(proxy.map(r => median(r.latency)));
  rows.push(['lock-step: median chunk latency', us(d), us(p), `${(p / d).toFixed(2)}×`, us(p - d)]);
  const dt = median(direct.map(r => r.total));
  const pt = median(proxy.map(r => r.total));
  rows.push([
    `lock-step: total, ${N} chunks`,
    ms(dt),
    ms(pt),
    `${(pt / dt).toFixed(2)}×`,
    `${us((pt - dt) / N)}/chunk`
  ]);
}
{
  const { direct, proxy } = results.burst;
  // Per chunk: arrival through the proxy minus arrival direct, paired run by run.
  const differences = [];
  for (let r = 0; r < RUNS; r++) {
    for (let i = 0; i < N; i++) {
      differences.push(proxy[r].arrival[i] - direct[r].arrival[i]);
    }
  }
  const df = median(direct.map(r => r.arrival[0]));
  const pf = median(proxy.map(r => r.arrival[0]));
  rows.push([
    'burst: time to first chunk',
    ms(df),
    ms(pf),
    `${(pf / df).toFixed(2)}×`,
    us(pf - df)
  ]);
  const d = median(direct.map(r => median(r.arrival)));
  const p = median(proxy.map(r => median(r.arrival)));
  rows.push([
    'burst: median time to a chunk',
    ms(d),
    ms(p),
    `${(p / d).toFixed(2)}×`,
    us(median(differences))
  ]);
  const dt = median(direct.map(r => r.total));
  const pt = median(proxy.map(r => r.total));
  rows.push([
    `burst: total, ${N} chunks`,
    ms(dt),
    ms(pt),
    `${(pt / dt).toFixed(2)}×`,
    `${us((pt - dt) / N)}/chunk`
  ]);
}

const header = ['measure', 'direct', 'via figure server', 'ratio', 'overhead'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map(row => row[i].length)));
const line = row => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
console.log(
  `Model proxy, ${N} SSE chunks of ~${chunk(1000).length} bytes, median of ${RUNS} runs each (Node ${process.version})\n`
);
console.log(line(header));
console.log(line(widths.map(w => '-'.repeat(w))));
rows.forEach(row => console.log(line(row)));
console.log(`\n(finished in ${((now() - began) / 1000).toFixed(1)} s)`);

figure.closeAllConnections();
endpoint.closeAllConnections();
await Promise.all([new Promise(r => figure.close(r)), new Promise(r => endpoint.close(r))]);
rmSync(workspace, { recursive: true, force: true });
