import { Resvg } from '@resvg/resvg-js';

import { fixedDecimal, GlyphCache, OUTLINED_LABEL_CHARACTERS } from '../server/render/glyphs';
import { resvgOverlayOptions } from '../server/render/overlay';

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

  it('keep outlined labels: drawn again, a label is not outlined again, and reads the same', () => {
    const cache = new GlyphCache(options);
    const label = (x: number, text: string): string =>
      `<text x="${x}" y="40.5" font-size="12" text-anchor="middle" fill="#ffffff">${text}</text>`;
    const svg = `<svg>${label(10.25, '1,024')}${label(80.75, '#7')}<rect/></svg>`;
    const outlined = cache.outlineText(svg);
    const outline = jest.spyOn(cache, 'labelPath');
    expect(cache.outlineText(svg)).toBe(outlined);
    expect(outline).not.toHaveBeenCalled();
    // Another label (or the same one elsewhere) is outlined; the kept ones are not.
    const moved = `<svg>${label(10.25, '1,024')}${label(81.75, '#7')}</svg>`;
    expect(cache.outlineText(moved)).toBe(new GlyphCache(options).outlineText(moved));
    expect(outline).toHaveBeenCalledTimes(1);
    cache.forgetLabels();
    expect(cache.keptLabelCharacters).toBe(0);
    cache.outlineText(svg);
    expect(outline).toHaveBeenCalledTimes(3);
  });

  it('keep outlined labels within their budget, the oldest dropped first', () => {
    const cache = new GlyphCache(options);
    const label = (i: number): string =>
      `<svg><text x="${i}.5" y="20" font-size="11" fill="#ffffff">${i}</text></svg>`;
    let kept = 0;
    for (let i = 0; kept < 3 * OUTLINED_LABEL_CHARACTERS; i++) {
      kept += label(i).length + cache.outlineText(label(i)).length;
      expect(cache.keptLabelCharacters).toBeLessThanOrEqual(OUTLINED_LABEL_CHARACTERS);
    }
    const outline = jest.spyOn(cache, 'labelPath');
    cache.outlineText(label(0));
    expect(outline).toHaveBeenCalledTimes(1);
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
