/**
 * What a figure may cost to draw: the named limits on filters (primitives, filtered canvas,
 * turbulence octaves, morphology radius, convolution order) and on text, in the pure policy the
 * browser and the figure server share.
 */
import { checkSvg } from '../server/svg/svg';
import {
  checkSvgPolicy,
  SVG_MAX_CONVOLVE_ORDER,
  SVG_MAX_FILTER_PRIMITIVES,
  SVG_MAX_FILTER_REGION_AREA,
  SVG_MAX_MORPHOLOGY_RADIUS,
  SVG_MAX_TEXT_CHARACTERS,
  SVG_MAX_TURBULENCE_OCTAVES
} from '../tools/svg';

const NS = 'http://www.w3.org/2000/svg';

function filtered(primitives: string, width = 800, height = 600): string {
  return (
    `<svg xmlns="${NS}" width="${width}" height="${height}">` +
    `<filter id="f">${primitives}</filter>` +
    `<rect width="${width}" height="${height}" fill="#8ac" filter="url(#f)"/></svg>`
  );
}

const TOO_EXPENSIVE = /^figure too expensive to draw: simplify its filters \(/;

describe('filter cost', () => {
  it('refuses the 30 KB, 4000×4000 figure of turbulence, morphology and convolution', () => {
    const shapes = Array.from(
      { length: 560 },
      (_, i) =>
        `<circle cx="${(i * 97) % 4000}" cy="${(i * 61) % 4000}" r="40" fill="#${(i * 4099).toString(16).padStart(6, '0').slice(0, 6)}"/>`
    ).join('');
    const svg =
      `<svg xmlns="${NS}" width="4000" height="4000" viewBox="0 0 4000 4000">` +
      '<filter id="f" x="0" y="0" width="4000" height="4000" filterUnits="userSpaceOnUse">' +
      '<feTurbulence baseFrequency="0.02" numOctaves="10"/>' +
      '<feMorphology operator="dilate" radius="60"/>' +
      '<feConvolveMatrix order="9" kernelMatrix="' +
      Array(81).fill(1).join(' ') +
      '"/></filter>' +
      `<g filter="url(#f)">${shapes}</g></svg>`;
    expect(svg.length).toBeGreaterThan(25_000);
    expect(svg.length).toBeLessThan(40_000);
    const result = checkSvgPolicy(svg);
    expect(result).toMatchObject({ ok: false, error: { kind: 'filter-cost' } });
    expect(!result.ok && result.error.message).toMatch(TOO_EXPENSIVE);
    // The server's check (policy, then resvg) gives the same answer.
    expect(checkSvg(svg)).toEqual(result);
  });

  it.each([
    [
      'numOctaves',
      `<feTurbulence baseFrequency="0.05" numOctaves="${SVG_MAX_TURBULENCE_OCTAVES}"/>`,
      `<feTurbulence baseFrequency="0.05" numOctaves="${SVG_MAX_TURBULENCE_OCTAVES + 1}"/>`,
      /numOctaves ≤ 4/
    ],
    [
      'morphology radius',
      `<feMorphology radius="${SVG_MAX_MORPHOLOGY_RADIUS} 2"/>`,
      `<feMorphology radius="2 ${SVG_MAX_MORPHOLOGY_RADIUS + 1}"/>`,
      /radius ≤ 16/
    ],
    [
      'convolution order',
      `<feConvolveMatrix order="${SVG_MAX_CONVOLVE_ORDER}" kernelMatrix="${Array(25).fill(1).join(' ')}"/>`,
      `<feConvolveMatrix order="${SVG_MAX_CONVOLVE_ORDER + 1} 3" kernelMatrix="${Array(18).fill(1).join(' ')}"/>`,
      /order ≤ 5/
    ],
    [
      'primitive count',
      '<feOffset dx="1"/>'.repeat(SVG_MAX_FILTER_PRIMITIVES),
      '<feOffset dx="1"/>'.repeat(SVG_MAX_FILTER_PRIMITIVES + 1),
      /at most 32/
    ]
  ])('caps the %s at its named limit', (_, atLimit, overLimit, fix) => {
    expect(checkSvg(filtered(atLimit))).toMatchObject({ ok: true });
    const result = checkSvgPolicy(filtered(overLimit));
    expect(result).toMatchObject({ ok: false, error: { kind: 'filter-cost' } });
    expect(!result.ok && result.error.message).toMatch(TOO_EXPENSIVE);
    expect(!result.ok && result.error.message).toMatch(fix);
  });

  it('refuses a morphology radius measured in the bounding box, which no number bounds', () => {
    const svg = filtered('<feMorphology radius="0.5"/>').replace(
      '<filter id="f">',
      '<filter id="f" primitiveUnits="objectBoundingBox">'
    );
    const result = checkSvgPolicy(svg);
    expect(result).toMatchObject({ ok: false, error: { kind: 'filter-cost' } });
    expect(!result.ok && result.error.message).toMatch(/use userSpaceOnUse/);
  });

  it('lets filters cover at most the filtered-area limit; unfiltered figures keep the full area', () => {
    const blur = '<feGaussianBlur stdDeviation="2"/>';
    expect(checkSvgPolicy(filtered(blur, 2000, 2000))).toMatchObject({ ok: true });
    const big = checkSvgPolicy(filtered(blur, 2001, 2000));
    expect(big).toMatchObject({ ok: false, error: { kind: 'filter-cost' } });
    expect(!big.ok && big.error.message).toMatch(/scale width\/height down and keep the viewBox/);
    const plain = `<svg xmlns="${NS}" width="4000" height="4000"><rect width="9" height="9"/></svg>`;
    expect(checkSvgPolicy(plain)).toMatchObject({ ok: true });
  });

  it('accepts an ordinary drop shadow on many boxes', () => {
    const boxes = Array.from(
      { length: 40 },
      (_, i) =>
        `<rect x="${(i % 8) * 140 + 10}" y="${Math.floor(i / 8) * 150 + 10}" width="120" height="100" filter="url(#shadow)" fill="#fff"/>`
    ).join('');
    const svg =
      `<svg xmlns="${NS}" width="1200" height="800"><defs><filter id="shadow">` +
      '<feGaussianBlur in="SourceAlpha" stdDeviation="3"/><feOffset dx="2" dy="2" result="s"/>' +
      '<feMerge><feMergeNode in="s"/><feMergeNode in="SourceGraphic"/></feMerge>' +
      `</filter></defs>${boxes}</svg>`;
    expect(checkSvg(svg)).toMatchObject({ ok: true });
  });
});

describe('text cost', () => {
  const line = (n: number): string => 'abcdefghij'.repeat(n / 10);

  it('counts glyphs, not spaces, up to SVG_MAX_TEXT_CHARACTERS', () => {
    const spaced = `<svg xmlns="${NS}" width="900" height="90"><text x="1" y="20">${line(SVG_MAX_TEXT_CHARACTERS)}${' '.repeat(5000)}</text></svg>`;
    expect(checkSvgPolicy(spaced)).toMatchObject({ ok: true });
    const over = `<svg xmlns="${NS}" width="900" height="90"><text x="1" y="20">${line(SVG_MAX_TEXT_CHARACTERS)}<tspan>x</tspan></text></svg>`;
    expect(checkSvgPolicy(over)).toMatchObject({ ok: false, error: { kind: 'text' } });
  });

  it('counts each <use> copy of a text', () => {
    const svg =
      `<svg xmlns="${NS}" width="900" height="900"><defs><text id="t">${line(1000)}</text></defs>` +
      Array.from({ length: 9 }, (_, i) => `<use href="#t" y="${i * 20}"/>`).join('') +
      '</svg>';
    const result = checkSvgPolicy(svg);
    expect(result).toMatchObject({ ok: false, error: { kind: 'text' } });
    expect(!result.ok && result.error.message).toMatch(/each <use> copy counted/);
  });

  it('does not count titles and descriptions, which are not drawn', () => {
    const svg = `<svg xmlns="${NS}" width="90" height="90"><title>${line(9000)}</title><rect width="9" height="9"/></svg>`;
    expect(checkSvgPolicy(svg)).toMatchObject({ ok: true });
  });
});

describe('filtered area', () => {
  const blur = '<feGaussianBlur stdDeviation="4"/>';
  const canvas = (body: string, defs = `<filter id="f">${blur}</filter>`): string =>
    `<svg xmlns="${NS}" width="2000" height="2000" viewBox="0 0 2000 2000"><defs>${defs}</defs>${body}</svg>`;
  const circles = (n: number, r: number, attrs = 'filter="url(#f)"'): string =>
    Array.from(
      { length: n },
      (_, i) =>
        `<circle cx="${100 + (i % 10) * 180}" cy="${100 + Math.floor(i / 10) * 300}" r="${r}" ${attrs}/>`
    ).join('');
  const refused = (svg: string): string => {
    const result = checkSvgPolicy(svg);
    expect(result).toMatchObject({ ok: false, error: { kind: 'filter-cost' } });
    return result.ok ? '' : result.error.message;
  };

  it('refuses 60 shapes that each filter the whole 2000×2000 canvas, naming the limit and the fix', () => {
    const full = `<filter id="f" filterUnits="userSpaceOnUse" x="0" y="0" width="2000" height="2000">${blur}</filter>`;
    const message = refused(canvas(circles(60, 10), full));
    expect(message).toMatch(TOO_EXPENSIVE);
    expect(message).toMatch(/filter regions cover 240\.0 M px/);
    expect(message).toMatch(
      new RegExp(`keep the sum ≤ ${SVG_MAX_FILTER_REGION_AREA / 1e6} M px — filter fewer shapes`)
    );
    expect(message).toMatch(/filterUnits="userSpaceOnUse"/);
    // The figure server's check refuses it the same way, before resvg is asked.
    expect(checkSvg(canvas(circles(60, 10), full))).toEqual(
      checkSvgPolicy(canvas(circles(60, 10), full))
    );
    // Four such regions are 16 M px, at the limit.
    expect(checkSvgPolicy(canvas(circles(4, 10), full))).toMatchObject({ ok: true });
    expect(checkSvgPolicy(canvas(circles(5, 10), full))).toMatchObject({ ok: false });
  });

  it('passes the heaviest figure of the other limits: 60 circles with their default regions (6.8 M px)', () => {
    // r = 140: a 280 px box, 336 px with the default 10 % each side; 60 × 336² ≈ 6.8 M px.
    expect(checkSvg(canvas(circles(60, 140)))).toMatchObject({ ok: true });
    // The same default region grows with the shape: 60 circles filling the canvas are refused.
    expect(refused(canvas(circles(60, 1000)))).toMatch(/cover 240\.0 M px/);
  });

  it('clips each region to the canvas and scales user units to pixels', () => {
    const huge = `<filter id="f" filterUnits="userSpaceOnUse" x="-9000" y="-9000" width="20000" height="20000">${blur}</filter>`;
    expect(checkSvgPolicy(canvas(circles(4, 10), huge))).toMatchObject({ ok: true });
    // A 200-unit viewBox drawn at 2000 px: a 50×50 unit box is 500×500 px.
    const scaled = (n: number): string =>
      `<svg xmlns="${NS}" width="2000" height="2000" viewBox="0 0 200 200"><filter id="f" x="0" y="0" width="1" height="1">${blur}</filter>` +
      Array.from({ length: n }, () => '<rect width="50" height="50" filter="url(#f)"/>').join('') +
      '</svg>';
    expect(checkSvgPolicy(scaled(64))).toMatchObject({ ok: true });
    expect(refused(scaled(65))).toMatch(/cover 16\.3 M px/);
  });

  it('counts each <use> copy of a filtered shape, and a copy under a scaling transform as the canvas', () => {
    const uses = (n: number): string =>
      '<circle id="c" r="500" filter="url(#f)"/>' +
      Array.from({ length: n }, (_, i) => `<use href="#c" x="${i * 10}"/>`).join('');
    // 1200² px each: the circle itself and 10 copies are 15.8 M px, 11 copies 17.3 M px.
    expect(checkSvgPolicy(canvas(uses(10)))).toMatchObject({ ok: true });
    expect(refused(canvas(uses(11)))).toMatch(/cover 17\.3 M px/);
    // A scaling transform on a copy takes the canvas, since its pixels are not known here.
    const transformed =
      '<circle id="c" r="5" filter="url(#f)"/>' + '<use href="#c" transform="scale(9)"/>'.repeat(5);
    expect(refused(canvas(transformed))).toMatch(/cover 20\.0 M px/);
  });

  it('counts CSS filters: the style attribute, filter functions, and sheet rules on every shape', () => {
    const styled = Array.from(
      { length: 5 },
      () => '<path d="M0 0L9 9" style="filter: url(#f)"/>'
    ).join('');
    // A path's box is not computed: each region is taken as the whole canvas.
    expect(refused(canvas(styled))).toMatch(/cover 20\.0 M px/);
    const functions = '<rect width="9" height="9" style="filter: blur(3px)"/>'.repeat(5);
    expect(refused(canvas(functions))).toMatch(/cover 20\.0 M px/);
    const sheet = (n: number): string =>
      '<style>.glow { filter: url(#f) }</style>' +
      Array.from({ length: n }, () => '<rect class="glow" width="900" height="900"/>').join('');
    // The rule may match the root too (the canvas, 4 M px) and each rect (1080² px).
    expect(checkSvgPolicy(canvas(sheet(10)))).toMatchObject({ ok: true });
    expect(refused(canvas(sheet(11)))).toMatch(/cover 16\.8 M px/);
  });
});
