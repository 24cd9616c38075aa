import {
  applyMarkArgs,
  drawView,
  emptyRecord,
  MAX_VIEW_SIDE,
  TICK_LENGTH,
  tickLabels,
  toViewX,
  toViewY,
  viewGeometry,
  type ViewGeometry,
  type ViewSpec,
  type VisionRecord
} from '../tools/vision';

function recordWith(size: { width: number; height: number }, ats: string[]): VisionRecord {
  return applyMarkArgs(emptyRecord('p.jpg'), { marks: ats.map(at => ({ at })) }, size).record;
}

const SIZES = [
  { width: 4000, height: 3000 },
  { width: 1023, height: 7 },
  { width: 333, height: 2000 },
  { width: 50, height: 40 },
  { width: 1025, height: 1025 }
];

function views(size: { width: number; height: number }): ViewSpec[] {
  const tiles = Array.from(
    { length: 16 },
    (_, i) => `${Math.floor((size.width * i) / 16)},${Math.floor((size.height * i) / 17)}`
  );
  return [
    { kind: 'map' },
    { kind: 'marks', ids: [1, 2] },
    { kind: 'closeup', at: '#1' },
    { kind: 'closeup', at: `${size.width - 1},${size.height - 1}` },
    { kind: 'closeup', at: `0,0,${size.width},${size.height}` },
    { kind: 'sheet', at: tiles.slice(0, 9) },
    { kind: 'sheet', at: tiles },
    { kind: 'sheet', at: ['#2', '1,1'] }
  ];
}

function eachView(check: (geometry: ViewGeometry, spec: ViewSpec) => void): void {
  for (const size of SIZES) {
    const record = recordWith(size, ['1,1', `0,0,${size.width},${size.height}`]);
    for (const spec of views(size)) {
      check(viewGeometry(spec, record, size), spec);
    }
  }
}

describe('view geometry', () => {
  it('caps every view at MAX_VIEW_SIDE, sheets included, and keeps panes inside the view', () => {
    let checked = 0;
    eachView(geometry => {
      expect(Math.max(geometry.width, geometry.height)).toBeLessThanOrEqual(MAX_VIEW_SIDE);
      for (const pane of geometry.panes) {
        // The ruler margin around every pane lies inside the view.
        expect(pane.left - pane.margin.left).toBeGreaterThanOrEqual(0);
        expect(pane.top - pane.margin.top).toBeGreaterThanOrEqual(0);
        expect(pane.left + pane.width + pane.margin.right).toBeLessThanOrEqual(geometry.width);
        expect(pane.top + pane.height + pane.margin.bottom).toBeLessThanOrEqual(geometry.height);
        expect(Number.isInteger(pane.region.x0) && Number.isInteger(pane.region.y1)).toBe(true);
        expect(pane.width).toBe(Math.round((pane.region.x1 - pane.region.x0) * pane.sx));
        expect(pane.height).toBe(Math.round((pane.region.y1 - pane.region.y0) * pane.sy));
      }
      checked++;
    });
    expect(checked).toBe(SIZES.length * 8);
  });

  it('fits the map with two scales, never enlarged', () => {
    const size = { width: 4000, height: 3000 };
    const map = viewGeometry({ kind: 'map' }, emptyRecord('p.jpg'), size);
    const { margin } = map.panes[0];
    expect(map.width).toBe(1024);
    expect(map.panes[0].width).toBe(1024 - margin.left - margin.right);
    expect(map.height).toBe(map.panes[0].height + margin.top + margin.bottom);
    const odd = viewGeometry({ kind: 'map' }, emptyRecord('p.jpg'), { width: 3001, height: 1999 });
    const inner = 1024 - odd.panes[0].margin.left - odd.panes[0].margin.right;
    expect(odd.panes[0].sx).toBeCloseTo(inner / 3001, 12);
    expect(odd.panes[0].sy).toBeCloseTo(Math.round((1999 * inner) / 3001) / 1999, 12);
    const small = viewGeometry({ kind: 'map' }, emptyRecord('p.jpg'), { width: 50, height: 40 });
    expect([small.panes[0].width, small.panes[0].sx]).toEqual([50, 1]);
  });

  it('puts the close-up crosshair on the asked position', () => {
    const size = { width: 4000, height: 3000 };
    const geometry = viewGeometry({ kind: 'closeup', at: '3999,0' }, emptyRecord('p.jpg'), size);
    const pane = geometry.panes[0];
    expect(pane.focus).toEqual({ x: 3999, y: 0 });
    expect(pane.region.x1).toBe(4000);
    expect(toViewX(pane, 3999)).toBeLessThan(geometry.width);
  });
});

describe('tick labels', () => {
  it('centres every label on its coordinate and keeps it in the margin, off the picture', () => {
    let labels = 0;
    eachView(geometry => {
      for (const pane of geometry.panes) {
        for (const label of tickLabels(pane)) {
          labels++;
          if (label.axis === 'x') {
            expect(label.x).toBeCloseTo(toViewX(pane, label.value), 9);
          } else {
            expect(label.y).toBeCloseTo(toViewY(pane, label.value), 9);
          }
          const box = {
            x0: label.x - label.width / 2,
            x1: label.x + label.width / 2,
            y0: label.y - label.height / 2,
            y1: label.y + label.height / 2
          };
          // Never over the picture: above it (x labels) or left of it (y labels).
          if (label.axis === 'x') {
            expect(box.y1).toBeLessThanOrEqual(pane.top - TICK_LENGTH);
          } else {
            expect(box.x1).toBeLessThanOrEqual(pane.left - TICK_LENGTH);
          }
          expect(box.x0).toBeGreaterThanOrEqual(pane.left - pane.margin.left);
          expect(box.x1).toBeLessThanOrEqual(pane.left + pane.width + pane.margin.right);
          expect(box.y0).toBeGreaterThanOrEqual(0);
          expect(box.y1).toBeLessThanOrEqual(pane.top + pane.height + pane.margin.bottom);
        }
      }
    });
    expect(labels).toBeGreaterThan(100);
  });

  it('labels the first and last tick in the margin, and drops a label with no room', () => {
    const map = viewGeometry({ kind: 'map' }, emptyRecord('p.jpg'), { width: 4000, height: 3000 });
    const pane = map.panes[0];
    const xs = tickLabels(pane)
      .filter(l => l.axis === 'x')
      .map(l => l.value);
    expect(xs).toContain(0);
    expect(xs).toContain(500);
    expect(xs).toContain(4000);
    // With no room on the right, the last label is dropped, never moved.
    const cramped = tickLabels({ ...pane, margin: { ...pane.margin, right: 0 } })
      .filter(l => l.axis === 'x')
      .map(l => l.value);
    expect(cramped).toContain(3500);
    expect(cramped).not.toContain(4000);
  });

  it('writes each kept label into the SVG at its centre', () => {
    const size = { width: 4000, height: 3000 };
    const { svg, geometry } = drawView({ kind: 'map' }, recordWith(size, ['10,10']), size);
    for (const label of tickLabels(geometry.panes[0]).filter(l => l.axis === 'x')) {
      expect(svg).toContain(`x="${Math.round(label.x * 100) / 100}"`);
      expect(svg).toContain(`>${label.text}</text>`);
    }
    expect(svg).toContain('font-family="DejaVu Sans"');
    expect(
      svg.startsWith(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${geometry.width}" height="${geometry.height}"`
      )
    ).toBe(true);
  });

  it('paints covered colours solid and leaves the others hollow', () => {
    const size = { width: 400, height: 300 };
    const record = applyMarkArgs(
      emptyRecord('p.jpg'),
      {
        marks: [
          { at: '10,10,50,50', colour: 'red' },
          { at: '100,100,150,150', colour: 'blue' }
        ]
      },
      size
    ).record;
    const { svg, geometry } = drawView({ kind: 'map', cover: ['red'] }, record, size);
    const { left, top } = geometry.panes[0];
    expect(svg).toContain(
      `<rect x="${left + 10}" y="${top + 10}" width="40" height="40" fill="#ff2020"`
    );
    expect(svg).toContain(
      `<rect x="${left + 100}" y="${top + 100}" width="50" height="50" fill="none" stroke="#2060ff"`
    );
  });

  it('leaves out marks outside a close-up, numbers included', () => {
    const size = { width: 4000, height: 3000 };
    const record = recordWith(size, ['100,100', '3900,2900']);
    const { svg } = drawView({ kind: 'closeup', at: '#1' }, record, size);
    expect(svg).toContain('>1</text>');
    expect(svg).not.toContain('>2</text>');
  });
});
