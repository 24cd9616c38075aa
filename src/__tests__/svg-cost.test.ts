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
