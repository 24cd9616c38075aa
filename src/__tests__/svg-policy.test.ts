/**
 * The SVG trust boundary: realistic figures pass, every hostile input is refused with its class
 * and an actionable message, both by the pure policy and by the server's resvg-backed check.
 */
import { checkSvg } from '../server/svg/svg';
import {
  checkSvgPolicy,
  SVG_MAX_AREA,
  SVG_MAX_BYTES,
  SVG_MAX_DEPTH,
  SVG_MAX_NODES,
  SVG_MAX_SIDE,
  utf8Length
} from '../tools/svg';
import { figure, HOSTILE_SVGS } from './fixtures/svg/hostile';
import { scatterFigure, VALID_FIGURES } from './fixtures/svg/valid';

describe('named limits', () => {
  it('are the ones the spec names', () => {
    expect(SVG_MAX_BYTES).toBe(65_536);
    expect(SVG_MAX_SIDE).toBe(4096);
    expect(SVG_MAX_AREA).toBe(16_000_000);
    expect(SVG_MAX_NODES).toBe(10_000);
    expect(SVG_MAX_DEPTH).toBe(64);
  });
});

describe('valid figures', () => {
  it.each(VALID_FIGURES.map(f => [f.name, f.svg]))('accepts %s', (_name, svg) => {
    const policy = checkSvgPolicy(svg);
    expect(policy).toMatchObject({ ok: true });
    expect(checkSvg(svg)).toEqual(policy);
  });

  it('measures size from width/height, units and the viewBox', () => {
    const size = (attributes: string): unknown => {
      const result = checkSvgPolicy(figure('', attributes));
      return result.ok ? [result.value.width, result.value.height] : result.error.kind;
    };
    expect(size('width="640" height="480"')).toEqual([640, 480]);
    expect(size('width="640px" height="48pt"')).toEqual([640, 64]);
    expect(size('viewBox="0 0 300 150"')).toEqual([300, 150]);
    expect(size('width="600" viewBox="0 0 300 150"')).toEqual([600, 300]);
    expect(size('width="100%" height="100%" viewBox="0,0,30,20"')).toEqual([30, 20]);
    expect(size('width="1in" height="2.54cm"')).toEqual([96, 96]);
  });

  it('counts nodes with use and url(#…) references expanded', () => {
    const result = checkSvgPolicy(
      figure('<defs><g id="a"><rect/><rect/></g></defs><use href="#a"/><use href="#a"/>')
    );
    // svg, defs, g+2, two uses of 1+3 each, and the figure's own trailing rect.
    expect(result).toEqual({ ok: true, value: { width: 200, height: 100, nodes: 1 + 4 + 8 + 1 } });
  });

  it('accepts exactly 64 KiB of UTF-8 and refuses one byte more', () => {
    const base = figure('<desc></desc>');
    // Two-byte characters, plus one ASCII character when the count is odd.
    const fill = (bytes: number): string =>
      figure(`<desc>${'é'.repeat(Math.floor(bytes / 2))}${bytes % 2 ? 'x' : ''}</desc>`);
    const exact = fill(SVG_MAX_BYTES - utf8Length(base));
    expect(utf8Length(exact)).toBe(SVG_MAX_BYTES);
    expect(checkSvg(exact).ok).toBe(true);
    const over = `${exact} `;
    expect(checkSvgPolicy(over)).toMatchObject({ ok: false, error: { kind: 'too-large' } });
  });

  it('accepts a realistic figure just under 64 KiB', () => {
    const svg = scatterFigure(SVG_MAX_BYTES - 100);
    expect(utf8Length(svg)).toBeGreaterThan(SVG_MAX_BYTES - 400);
    expect(checkSvg(svg)).toMatchObject({ ok: true, value: { width: 800, height: 600 } });
  });

  it('accepts nesting of exactly the depth limit', () => {
    const depth = SVG_MAX_DEPTH - 1; // the root is the first level
    const svg = figure(
      `${'<g>'.repeat(depth - 1)}<rect width="1" height="1"/>${'</g>'.repeat(depth - 1)}`
    );
    expect(checkSvgPolicy(svg).ok).toBe(true);
  });
});

describe('utf8Length', () => {
  it('counts UTF-8 bytes, astral characters as 4 and lone surrogates as 3', () => {
    expect(utf8Length('a')).toBe(1);
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('€')).toBe(3);
    expect(utf8Length('😀')).toBe(4);
    expect(utf8Length('\ud800')).toBe(3);
    expect(utf8Length('a€😀é')).toBe(new TextEncoder().encode('a€😀é').length);
  });
});

describe('hostile corpus', () => {
  it('holds at least 60 inputs covering every class the spec names', () => {
    expect(HOSTILE_SVGS.length).toBeGreaterThanOrEqual(60);
    const kinds = new Set(HOSTILE_SVGS.map(h => h.kind));
    for (const kind of [
      'empty',
      'too-large',
      'malformed',
      'not-svg',
      'dimensions',
      'complexity',
      'external-reference',
      'css-import',
      'raster',
      'script',
      'event-attribute',
      'link',
      'animation',
      'foreign-object',
      'foreign-namespace',
      'doctype',
      'processing-instruction',
      'xinclude'
    ]) {
      expect(kinds).toContain(kind);
    }
  });

  it.each(HOSTILE_SVGS.map(h => [h.name, h.kind, h.svg]))(
    'refuses %s as %s',
    (_name, kind, svg) => {
      const policy = checkSvgPolicy(svg);
      expect(policy).toMatchObject({ ok: false, error: { kind } });
      // The server check says the same thing: nothing reaches resvg that the policy refused.
      expect(checkSvg(svg)).toEqual(policy);
      if (!policy.ok) {
        expect(policy.error.message).toMatch(/^SVG /);
        expect(policy.error.message).toMatch(/; [a-z]/); // "…; <the fix>"
        expect(policy.error.message.length).toBeLessThan(400);
      }
    }
  );

  it('each hostile input is only hostile for the reason it is filed under', () => {
    // The wrapper alone must pass, so every rejection is caused by the hostile part.
    expect(checkSvg(figure('')).ok).toBe(true);
  });
});

describe('messages', () => {
  const message = (svg: string): string => {
    const result = checkSvg(svg);
    return result.ok ? 'accepted' : `Tool error: ${result.error.message}`;
  };

  it('name the class and the fix', () => {
    expect(message(figure('<script>alert(1)</script>'))).toBe(
      'Tool error: SVG contains <script>; remove scripts — figures must be static'
    );
    expect(message('')).toMatch(/^Tool error: SVG is empty; send a complete <svg/);
    expect(message(figure(`<desc>${'€'.repeat(22_000)}</desc>`))).toMatch(
      /^Tool error: SVG is 66\d{3} bytes \(UTF-8\); keep it within 65536 bytes/
    );
    expect(message(figure('<use href="/etc/passwd"/>'))).toContain(
      'SVG references "/etc/passwd" in attribute href of <use>; use only local "#id" references'
    );
    expect(message(figure('<rect onclick="x()"/>'))).toContain(
      'event attribute onclick on <rect>; remove event handlers'
    );
    expect(message(figure('<foo/>'))).toContain('SVG contains <foo>, which figures do not allow');
    expect(message(figure('<g data-x="1"/>'))).toContain(
      'SVG attribute data-x on <g> is not allowed; remove it'
    );
    expect(message(figure('', 'width="5000" height="10"'))).toContain(
      'SVG is 5000×10 px; keep each side ≤ 4096 px'
    );
  });

  it('report an empty drawing only after the resvg parse', () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><g/></svg>`;
    expect(checkSvgPolicy(svg).ok).toBe(true);
    expect(checkSvg(svg)).toMatchObject({ ok: false, error: { kind: 'empty' } });
  });
});
