import {
  applyMarkArgs,
  drawView,
  emptyRecord,
  MAX_VIEW_SIDE,
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
        expect(pane.left).toBeGreaterThanOrEqual(0);
        expect(pane.top).toBeGreaterThanOrEqual(0);
        expect(pane.left + pane.width).toBeLessThanOrEqual(geometry.width);
        expect(pane.top + pane.height).toBeLessThanOrEqual(geometry.height);
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
    expect([map.width, map.height]).toEqual([1024, 768]);
    const odd = viewGeometry({ kind: 'map' }, emptyRecord('p.jpg'), { width: 3001, height: 1999 });
    expect(odd.panes[0].sx).toBeCloseTo(1024 / 3001, 12);
    expect(odd.panes[0].sy).toBeCloseTo(682 / 1999, 12);
    expect(
      viewGeometry({ kind: 'map' }, emptyRecord('p.jpg'), { width: 50, height: 40 }).width
    ).toBe(50);
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
  it('centres every label on its coordinate and keeps it inside its pane', () => {
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
          expect(label.x - label.width / 2).toBeGreaterThanOrEqual(pane.left);
          expect(label.x + label.width / 2).toBeLessThanOrEqual(pane.left + pane.width);
          expect(label.y - label.height / 2).toBeGreaterThanOrEqual(pane.top);
          expect(label.y + label.height / 2).toBeLessThanOrEqual(pane.top + pane.height);
        }
      }
    });
    expect(labels).toBeGreaterThan(100);
  });

  it('drops a label that would cross the edge instead of moving it', () => {
    const map = viewGeometry({ kind: 'map' }, emptyRecord('p.jpg'), { width: 4000, height: 3000 });
    const xs = tickLabels(map.panes[0])
      .filter(l => l.axis === 'x')
      .map(l => l.value);
    expect(xs).not.toContain(0);
    expect(xs).toContain(500);
    expect(xs).not.toContain(4000);
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
      svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="768"')
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
    const { svg } = drawView({ kind: 'map', cover: ['red'] }, record, size);
    expect(svg).toMatch(/<rect x="10" y="10" width="40" height="40" fill="#ff2020"/);
    expect(svg).toMatch(
      /<rect x="100" y="100" width="50" height="50" fill="none" stroke="#2060ff"/
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
