import { BUNDLE_VERSION, parseOutputBundle } from '../tools/bundle';

const picture = { address: 'cell:abc/0', sha256: 'a'.repeat(64), width: 640, height: 480 };

describe('parseOutputBundle', () => {
  it('reads a figure and a vision bundle, keeping unknown fields', () => {
    const figure = parseOutputBundle({ version: 1, kind: 'figure', alt: 'Three stages', extra: 7 });
    expect(figure).toEqual({
      ok: true,
      value: { version: 1, kind: 'figure', alt: 'Three stages', extra: 7 }
    });
    const vision = parseOutputBundle({
      version: BUNDLE_VERSION,
      kind: 'vision',
      picture,
      record: {
        image: 'cell:abc/0',
        marks: [{ id: 1, kind: 'point', x: 3, y: 4, r: 5, caption: 'a', colour: 'red' }]
      },
      view: { kind: 'show', at: ['#1'] }
    });
    expect(vision.ok).toBe(true);
  });

  it('refuses another version with a message naming the fix', () => {
    const result = parseOutputBundle({ version: 2, kind: 'figure', alt: 'x' });
    expect(result).toEqual({
      ok: false,
      error: expect.stringContaining('Update jupyterlab-figure-chat')
    });
  });

  it('refuses hostile shapes without throwing', () => {
    for (const value of [
      null,
      42,
      'x',
      [],
      { version: 1, kind: 'figure' },
      { version: 1, kind: 'eval' }
    ]) {
      expect(parseOutputBundle(value).ok).toBe(false);
    }
    const marks = Array.from({ length: 1001 }, (_, i) => ({
      id: i + 1,
      kind: 'point',
      x: 1,
      y: 1,
      r: 1,
      caption: '',
      colour: 'red'
    }));
    const tooMany = parseOutputBundle({
      version: 1,
      kind: 'vision',
      picture,
      record: { image: 'a.png', marks },
      view: { kind: 'map' }
    });
    expect(tooMany).toEqual({ ok: false, error: expect.stringContaining('record.marks') });
  });
});
