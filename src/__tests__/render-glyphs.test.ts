import { Resvg } from '@resvg/resvg-js';

import { fixedDecimal, GlyphCache } from '../server/glyphs';
import { resvgOverlayOptions } from '../server/overlay';

const options = resvgOverlayOptions();
const glyphs = new GlyphCache(options);

function numbers(path: string): string[] {
  return (/\sd="([^"]*)"/.exec(path)?.[1] ?? '').split(' ').filter(token => !/^[A-Z]$/.test(token));
}

describe('glyph labels', () => {
  it('write each coordinate as a short decimal', () => {
    const path = glyphs.labelPath('1234', 200.38, 300.58, 13, 'start', 'fill="#ffffff"');
    expect(path).toBeDefined();
    const values = numbers(path as string);
    expect(values.length).toBeGreaterThan(20);
    for (const value of values) {
      // Above 128 an f32's spacing is at least 2^-16: five decimals always suffice (toPrecision(9)
      // wrote six, such as 200.380005).
      expect(value).toMatch(/^-?\d+(\.\d{1,5})?$/);
    }
    // That they read back as the same f32 is what the next test proves: the same pixels.
  });

  it('rasterize exactly like resvg draws the same text, at every anchor and size', () => {
    const labels: string[] = [];
    [11, 12, 13].forEach((size, s) => {
      ['start', 'middle', 'end'].forEach((anchor, a) => {
        ['0123456789', '#12', '-3.75', '1,024'].forEach((text, t) => {
          const x = 3.3 + 97.7 * a + 0.13 * t + 301.9 * s;
          const y = 14.6 + 23.1 * t + 0.37 * a;
          labels.push(
            `<text x="${x}" y="${y}" font-size="${size}" text-anchor="${anchor}" fill="#ff2020" ` +
              `stroke="#000000" stroke-width="3" stroke-linejoin="round" paint-order="stroke">${text}</text>`
          );
        });
      });
    });
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="960" height="120" viewBox="0 0 960 120" ' +
      `font-family="DejaVu Sans">${labels.join('')}</svg>`;
    const outlined = glyphs.outlineText(svg);
    expect(outlined).not.toContain('<text');
    const text = new Resvg(svg, options).render().pixels;
    const paths = new Resvg(outlined, options).render().pixels;
    expect(paths.equals(text)).toBe(true);
  });

  it('write a rounded coordinate exactly as String writes the same double', () => {
    // Coordinates are written from the integer k of k / 10^digits, without converting a double;
    // the text must stay what String(k / 10^digits) wrote, which the pixel test above relies on.
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const cases = [0, -0, 1, -1, 10, 100000, 1000000, -1000000, 123450, 2990000, -100, 1e11 + 1];
    for (let i = 0; i < 5000; i++) {
      cases.push(Math.round((random() - 0.3) * (random() < 0.5 ? 1e11 : 1e7)));
    }
    const wrong = cases.filter(
      k => fixedDecimal(k, 5) !== String(k / 1e5) || fixedDecimal(k, 6) !== String(k / 1e6)
    );
    expect(wrong).toEqual([]);
  });
});
