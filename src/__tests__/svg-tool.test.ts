/**
 * The `present_svg` tool as data: its schema, its description, the one helper that reads a
 * figure back from a stored call, and the data URL figures are shown through.
 */
import { z } from 'zod';

import {
  figureFromCall,
  PRESENT_SVG,
  PRESENT_SVG_DESCRIPTION,
  presentSvgInput,
  svgDataUri
} from '../tools/svg';

const svg =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>';

describe('presentSvgInput', () => {
  it('requires both fields as non-blank strings', () => {
    expect(presentSvgInput.safeParse({ svg, alt: 'A square' }).success).toBe(true);
    for (const bad of [
      {},
      { svg },
      { alt: 'x' },
      { svg: '', alt: 'x' },
      { svg, alt: '' },
      { svg, alt: '   ' },
      { svg: ' \n', alt: 'x' },
      { svg: 1, alt: 'x' },
      { svg, alt: ['x'] }
    ]) {
      expect(presentSvgInput.safeParse(bad).success).toBe(false);
    }
  });

  it('converts to a JSON Schema with both fields required', () => {
    const schema = z.toJSONSchema(presentSvgInput) as { required?: string[] };
    expect(schema.required).toEqual(['svg', 'alt']);
  });
});

describe('PRESENT_SVG_DESCRIPTION', () => {
  it('tells the model when to use the tool and what a figure may contain', () => {
    expect(PRESENT_SVG).toBe('present_svg');
    expect(PRESENT_SVG_DESCRIPTION).toMatch(/static SVG diagram or illustration/);
    expect(PRESENT_SVG_DESCRIPTION).toMatch(/materially helps/);
    expect(PRESENT_SVG_DESCRIPTION).toMatch(/Not for interactive controls or stateful UI/);
    expect(PRESENT_SVG_DESCRIPTION).toMatch(/self-contained/);
    expect(PRESENT_SVG_DESCRIPTION).toMatch(/no external resources/);
    expect(PRESENT_SVG_DESCRIPTION).toMatch(/no raster images/);
    expect(PRESENT_SVG_DESCRIPTION).toMatch(/`alt` states what the figure conveys/);
  });
});

describe('figureFromCall', () => {
  it('returns the stored svg and alt byte for byte', () => {
    const source = `<?xml version="1.0"?>\r\n${svg}\n<!-- é → 😀 -->  `;
    expect(
      figureFromCall({ name: 'present_svg', arguments: { svg: source, alt: ' A square ' } })
    ).toEqual({ svg: source, alt: ' A square ' });
  });

  it('ignores extra arguments', () => {
    expect(
      figureFromCall({ name: 'present_svg', arguments: { svg, alt: 'A', extra: true } })
    ).toEqual({ svg, alt: 'A' });
  });

  it('returns null for other tools and malformed calls', () => {
    expect(figureFromCall({ name: 'vision_mark', arguments: { svg, alt: 'A' } })).toBeNull();
    expect(figureFromCall({ name: 'present_svg', arguments: { svg } })).toBeNull();
    expect(figureFromCall({ name: 'present_svg', arguments: { svg: '', alt: 'A' } })).toBeNull();
    expect(figureFromCall({ name: 'present_svg', arguments: { svg: 7, alt: 'A' } })).toBeNull();
    expect(figureFromCall({ name: 'Present_SVG', arguments: { svg, alt: 'A' } })).toBeNull();
  });
});

describe('svgDataUri', () => {
  it('percent-encodes the source into an image/svg+xml data URL that decodes back exactly', () => {
    const source = `${svg}<!-- #hash 50% "quotes" é 😀 -->`;
    const uri = svgDataUri(source);
    expect(uri.startsWith('data:image/svg+xml,')).toBe(true);
    // `#` would end the URL at a fragment; `<`, `>`, quotes and spaces break `src` attributes.
    expect(uri).not.toMatch(/[<>"# ]/);
    expect(decodeURIComponent(uri.slice('data:image/svg+xml,'.length))).toBe(source);
  });

  it('does not throw on lone surrogates', () => {
    expect(svgDataUri('<svg>\ud800</svg>')).toBe(
      `data:image/svg+xml,${encodeURIComponent('<svg>\ufffd</svg>')}`
    );
  });
});
