import {
  applyMarkArgs,
  applyUpdateArgs,
  describeMark,
  drawView,
  emptyRecord,
  markBounds,
  MAX_LISTED_VERTICES,
  MAX_POLYGON_VERTICES,
  parseMarkAddress,
  parseVisionArgs,
  planVisionCall,
  validateRecord,
  viewGeometry,
  VisionError,
  type VisionErrorCode,
  type VisionRecord
} from '../tools/vision';

const size = { width: 400, height: 300 };
const TRIANGLE = '10,10,90,10,50,80';

function errorOf(run: () => unknown): VisionError | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(VisionError);
    return error as VisionError;
  }
  return undefined;
}

function codeOf(run: () => unknown): VisionErrorCode | undefined {
  return errorOf(run)?.code;
}

function withMarks(...ats: string[]): VisionRecord {
  return applyMarkArgs(emptyRecord('p.png'), { marks: ats.map(at => ({ at })) }, size).record;
}

describe('polygon addresses', () => {
  it('reads 6 or more coordinates (an even count) as a polygon', () => {
    expect(parseMarkAddress(TRIANGLE)).toEqual({
      kind: 'polygon',
      points: [
        [10, 10],
        [90, 10],
        [50, 80]
      ]
    });
    expect(parseMarkAddress('0,0, 4,4')).toEqual({ kind: 'box', x0: 0, y0: 0, x1: 4, y1: 4 });
    expect(parseMarkAddress('0,0,4,0,4,4,0,4')).toMatchObject({ kind: 'polygon' });
  });

  it.each(['1,2,3,4,5', '1,2,3,4,5,6,7', '1,2,3,4,5,x', '1.5,2,3,4,5,6'])('refuses %j', text =>
    expect(codeOf(() => parseMarkAddress(text))).toBe('bad-address')
  );

  it('refuses a polygon with more than the named maximum of vertices, naming it', () => {
    const many = Array.from({ length: MAX_POLYGON_VERTICES + 1 }, (_, i) => `${i},${i % 2}`).join(
      ','
    );
    const error = errorOf(() => parseMarkAddress(many));
    expect(error?.code).toBe('bad-polygon');
    expect(error?.message).toContain(String(MAX_POLYGON_VERTICES));
    // The largest allowed polygon is taken whole.
    const most = Array.from({ length: MAX_POLYGON_VERTICES }, (_, i) =>
      i % 2 ? `${i},0` : `${i},50`
    ).join(',');
    expect(parseMarkAddress(most)).toMatchObject({ kind: 'polygon' });
    // A huge hostile address is refused by the schema before it is even split.
    const huge = '1,'.repeat(100000) + '1';
    expect(codeOf(() => parseVisionArgs('vision_mark', { marks: [{ at: huge }] }))).toBe(
      'bad-args'
    );
  });
});

describe('polygon marks', () => {
  it('adds a polygon, lists it with the address the tools take back, bounds it', () => {
    const record = withMarks(TRIANGLE);
    const [mark] = record.marks;
    expect(mark).toEqual({
      id: 1,
      kind: 'polygon',
      points: [
        [10, 10],
        [90, 10],
        [50, 80]
      ],
      caption: '',
      colour: 'green'
    });
    expect(describeMark(mark)).toBe(`#1 polygon ${TRIANGLE} green`);
    expect(markBounds(mark)).toEqual({ x0: 10, y0: 10, x1: 90, y1: 80 });
  });

  it('refuses vertices outside the picture like a box reaching outside, and polygons with no area', () => {
    expect(codeOf(() => withMarks('0,0,401,0,200,100'))).toBe('out-of-bounds');
    expect(codeOf(() => withMarks('-1,0,40,0,20,10'))).toBe('out-of-bounds');
    expect(codeOf(() => withMarks('0,0,10,0,20,301'))).toBe('out-of-bounds');
    // Vertices on the picture's far edges are inside, as a box's corners are.
    expect(withMarks('0,0,400,0,400,300').marks).toHaveLength(1);
    expect(codeOf(() => withMarks('0,0,10,10,20,20'))).toBe('bad-polygon');
    expect(codeOf(() => withMarks('5,5,5,5,5,5'))).toBe('bad-polygon');
    expect(
      codeOf(() => applyMarkArgs(emptyRecord('p.png'), { marks: [{ at: TRIANGLE, r: 4 }] }, size))
    ).toBe('bad-radius');
  });

  it('moves a polygon, turns a box into a polygon and back, all or nothing', () => {
    const record = withMarks(TRIANGLE, '100,100,200,200');
    const moved = applyUpdateArgs(
      record,
      {
        ops: [
          { mark: 1, at: '20,20,100,20,60,90,20,60' },
          { mark: 2, at: '100,100,150,100,120,160' }
        ]
      },
      size
    ).record;
    expect(moved.marks[0]).toMatchObject({
      kind: 'polygon',
      points: [
        [20, 20],
        [100, 20],
        [60, 90],
        [20, 60]
      ]
    });
    expect(moved.marks[1]).toMatchObject({ kind: 'polygon', id: 2 });
    const back = applyUpdateArgs(moved, { ops: [{ mark: 1, at: '1,2,3,4' }] }, size).record;
    expect(back.marks[0]).toMatchObject({ kind: 'box', x0: 1, y0: 2, x1: 3, y1: 4 });
    expect(
      codeOf(() =>
        applyUpdateArgs(
          record,
          {
            ops: [
              { mark: 1, caption: 'x' },
              { mark: 2, at: '0,0,999,0,5,5' }
            ]
          },
          size
        )
      )
    ).toBe('out-of-bounds');
    // A caption-only change keeps the vertices.
    const captioned = applyUpdateArgs(record, { ops: [{ mark: 1, caption: 'roof' }] }, size).record;
    expect(captioned.marks[0]).toMatchObject({
      kind: 'polygon',
      caption: 'roof',
      points: record.marks[0].kind === 'polygon' ? record.marks[0].points : []
    });
  });

  it('validates stored polygons: vertex count, integers, bounds', () => {
    const record = withMarks(TRIANGLE);
    expect(validateRecord(JSON.parse(JSON.stringify(record)), size)).toEqual(record);
    const bad = (points: unknown): unknown => ({
      ...record,
      marks: [{ ...record.marks[0], points }]
    });
    expect(
      codeOf(() =>
        validateRecord(
          bad([
            [1, 1],
            [2, 2]
          ]),
          size
        )
      )
    ).toBe('bad-args');
    expect(
      codeOf(() =>
        validateRecord(
          bad([
            [1, 1],
            [2.5, 2],
            [3, 9]
          ]),
          size
        )
      )
    ).toBe('bad-args');
    expect(
      codeOf(() =>
        validateRecord(
          bad([
            [1, 1, 1],
            [2, 2],
            [3, 9]
          ]),
          size
        )
      )
    ).toBe('bad-args');
    expect(
      codeOf(() =>
        validateRecord(
          bad([
            [1, 1],
            [500, 2],
            [3, 9]
          ]),
          size
        )
      )
    ).toBe('out-of-bounds');
    const many = Array.from({ length: MAX_POLYGON_VERTICES + 1 }, (_, i) => [
      i % 300,
      i % 2 ? 0 : 50
    ]);
    expect(codeOf(() => validateRecord(bad(many), size))).toBe('bad-args');
  });

  it('tells a large polygon by its vertex count and extent, not 1.6 kB of numbers', () => {
    const outline = Array.from({ length: MAX_LISTED_VERTICES + 1 }, (_, i) => {
      const angle = (2 * Math.PI * i) / (MAX_LISTED_VERTICES + 1);
      return `${Math.round(200 + 100 * Math.cos(angle))},${Math.round(150 + 100 * Math.sin(angle))}`;
    }).join(',');
    const [mark] = withMarks(outline).marks;
    expect(describeMark(mark)).toBe(
      `#1 polygon of ${MAX_LISTED_VERTICES + 1} vertices within 100,50,300,250 green`
    );
    const small = withMarks(TRIANGLE).marks[0];
    expect(describeMark(small)).toContain(TRIANGLE);
  });

  it('plans a polygon call and tells the model what it added', () => {
    const plan = planVisionCall(
      'vision_mark',
      { marks: [{ at: TRIANGLE, caption: 'roof' }] },
      emptyRecord('p.png'),
      size
    );
    expect(plan.text).toBe(`Added #1 polygon ${TRIANGLE} green "roof". p.png now has 1 mark.`);
    const show = planVisionCall('vision_show', { at: ['#1', TRIANGLE] }, plan.record, size);
    expect(show.views).toHaveLength(1);
    expect(show.text).toContain('#1');
  });
});

describe('drawing polygons in every view', () => {
  const record = withMarks(TRIANGLE, '300,200,390,200,390,290,300,290,340,240');
  it.each([
    { kind: 'map' as const },
    { kind: 'marks' as const, ids: [1, 2] },
    { kind: 'closeup' as const, at: '#2' },
    { kind: 'sheet' as const, at: ['#1', '#2'] }
  ])('draws both polygons in a $kind view, inside the view', spec => {
    const { svg, geometry } = drawView(spec, record, size);
    const polygons = [...svg.matchAll(/<polygon points="([^"]+)"/g)].map(m => m[1]);
    // Halo and stroke per polygon; a close-up of #2 shows #2 at least.
    expect(polygons.length).toBeGreaterThanOrEqual(2);
    for (const points of polygons) {
      for (const pair of points.split(' ')) {
        const [x, y] = pair.split(',').map(Number);
        expect(Number.isFinite(x) && Number.isFinite(y)).toBe(true);
        expect(x).toBeGreaterThanOrEqual(-1);
        expect(x).toBeLessThanOrEqual(geometry.width + 1);
        expect(y).toBeLessThanOrEqual(geometry.height + 1);
      }
    }
  });

  it('puts the vertices where the pane maps them', () => {
    const spec = { kind: 'map' as const };
    const geometry = viewGeometry(spec, record, size);
    const pane = geometry.panes[0];
    const { svg } = drawView(spec, record, size);
    const first = /<polygon points="([^ ]+) /.exec(svg)?.[1].split(',').map(Number);
    expect(first?.[0]).toBeCloseTo(pane.left + (10 - pane.region.x0) * pane.sx, 1);
    expect(first?.[1]).toBeCloseTo(pane.top + (10 - pane.region.y0) * pane.sy, 1);
  });
});
