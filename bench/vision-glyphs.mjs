/**
 * Checks that overlay labels drawn from the glyph cache (src/server/render/glyphs.ts) rasterize like
 * resvg's own text, and times both: every label string of a map, a close-up and a sheet of the
 * benchmark picture, plus strings of every cached character at sizes 11 to 13 and each anchor.
 * Prints the bytes that differ (of premultiplied RGBA) and the largest difference.
 *
 *   node bench/vision-glyphs.mjs
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { loadSources, repo } from './load-sources.mjs';

const requireFromRepo = createRequire(join(repo, 'package.json'));
const { Resvg } = requireFromRepo('@resvg/resvg-js');

const fc = await loadSources('vision-glyphs', [
  "export * from './src/server/render/glyphs';",
  "export * from './src/tools/vision';"
]);

const options = {
  font: {
    loadSystemFonts: false,
    fontFiles: [requireFromRepo.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')],
    defaultFontFamily: fc.FONT_FAMILY,
    sansSerifFamily: fc.FONT_FAMILY
  },
  fitTo: { mode: 'original' },
  logLevel: 'off'
};
const glyphs = new fc.GlyphCache(options);

function compare(svg) {
  const outlined = glyphs.outlineText(svg);
  const a = new Resvg(svg, options).render().pixels;
  const b = new Resvg(outlined, options).render().pixels;
  let differing = 0;
  let largest = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (d) {
      differing++;
      largest = Math.max(largest, d);
    }
  }
  return { differing, largest, left: (outlined.match(/<text/g) ?? []).length };
}

function medianMs(run, n = 11) {
  run();
  const times = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  return times.sort((x, y) => x - y)[n >> 1];
}

const W = 4000;
const H = 3000;
const marks = Array.from({ length: 50 }, (_, i) => {
  const x = 80 + ((i * 797) % (W - 400));
  const y = 80 + ((i * 577) % (H - 400));
  const colour = fc.PALETTE[i % fc.PALETTE.length];
  return i % 3 === 2
    ? { at: `${x},${y},${x + 150 + (i % 5) * 40},${y + 100 + (i % 4) * 30}`, colour }
    : { at: `${x},${y}`, r: 20 + (i % 6) * 8, colour };
});
const size = { width: W, height: H };
const record = fc.applyMarkArgs(fc.emptyRecord('p.jpg'), { marks }, size).record;
const views = {
  map: { kind: 'map' },
  closeup: { kind: 'closeup', at: '#7' },
  sheet: { kind: 'sheet', at: ['#1', '#2', '#3', '#4', '#5', '#6', '100,200', '1234,567,1500,900'] }
};
for (const [name, spec] of Object.entries(views)) {
  const { svg } = fc.drawView(spec, record, size);
  const { differing, largest, left } = compare(svg);
  const text = medianMs(() => new Resvg(svg, options).render());
  const outlined = medianMs(() => new Resvg(glyphs.outlineText(svg), options).render());
  process.stdout.write(
    `${name}: ${differing} bytes differ (largest ${largest}), ${left} texts left; resvg ${text.toFixed(1)} ms with text, ${outlined.toFixed(1)} ms outlined\n`
  );
}
let worst = 0;
let cases = 0;
for (const text of ['0', '17', '1234567890', '-12.5', '#42', '1,2', '100,200,300,400', '98765']) {
  for (const fontSize of [11, 12, 13]) {
    for (const anchor of ['start', 'middle', 'end']) {
      const svg =
        `<svg xmlns="http://www.w3.org/2000/svg" width="140" height="30" font-family="${fc.FONT_FAMILY}">` +
        `<text x="70.37" y="20.5" font-size="${fontSize}" text-anchor="${anchor}" fill="#fff" stroke="#000" ` +
        `stroke-width="3" stroke-linejoin="round" paint-order="stroke">${text}</text></svg>`;
      worst = Math.max(worst, compare(svg).largest);
      cases++;
    }
  }
}
process.stdout.write(`${cases} single labels: largest byte difference ${worst}\n`);
