import {
  applyMarkArgs,
  applyUpdateArgs,
  emptyRecord,
  parseMarkAddress,
  parsePictureAddress,
  planVisionCall,
  VisionError,
  type VisionErrorCode,
  type VisionRecord
} from '../tools/vision';

const size = { width: 400, height: 300 };

function errorCode(run: () => unknown): VisionErrorCode | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(VisionError);
    expect((error as VisionError).name).toBe('VisionError');
    return (error as VisionError).code;
  }
  return undefined;
}

function marked(...ats: string[]): VisionRecord {
  return applyMarkArgs(emptyRecord('a.png'), { marks: ats.map(at => ({ at })) }, size).record;
}

describe('addresses', () => {
  it('parses marks, points and boxes by the number of coordinates', () => {
    expect(parseMarkAddress('#17')).toEqual({ kind: 'mark', id: 17 });
    expect(parseMarkAddress('640, 480')).toEqual({ kind: 'point', x: 640, y: 480 });
    expect(parseMarkAddress('1,2,3,4')).toEqual({ kind: 'box', x0: 1, y0: 2, x1: 3, y1: 4 });
  });

  it.each(['', '#', '1', '1,2,3', '1.5,2', 'a,b', '1,2,3,4,5', '#-1', '# 3'])('refuses %j', text =>
    expect(errorCode(() => parseMarkAddress(text))).toBe('bad-address')
  );

  it('parses picture addresses and refuses bad ones', () => {
    expect(parsePictureAddress('cell:5f3c-a_1/2')).toEqual({
      kind: 'cell',
      cellId: '5f3c-a_1',
      output: 2
    });
    expect(parsePictureAddress('img/a.png')).toEqual({ kind: 'path', path: 'img/a.png' });
    for (const bad of [
      'cell:x',
      'cell:/0',
      '/etc/passwd',
      '../a.png',
      'a/../../b.png',
      'C:\\a.png',
      ''
    ]) {
      expect(errorCode(() => parsePictureAddress(bad))).toBe('bad-address');
    }
  });
});

describe('applyMarkArgs', () => {
  it('numbers marks in the order given, with defaults', () => {
    const { record, added } = applyMarkArgs(
      emptyRecord('a.png'),
      { marks: [{ at: '10,20', r: 5, caption: 'eye', colour: 'red' }, { at: '1,2,30,40' }] },
      size
    );
    expect(added.map(m => m.id)).toEqual([1, 2]);
    expect(record.marks).toEqual([
      { id: 1, kind: 'point', x: 10, y: 20, r: 5, caption: 'eye', colour: 'red' },
      { id: 2, kind: 'box', x0: 1, y0: 2, x1: 30, y1: 40, caption: '', colour: 'green' }
    ]);
    expect(record.lastId).toBe(2);
  });

  it('continues after the highest number ever used and never reuses a removed one', () => {
    const two = marked('1,1', '2,2');
    const removed = applyUpdateArgs(two, { ops: [{ mark: 2, remove: true }] }, size).record;
    const { added } = applyMarkArgs(removed, { marks: [{ at: '3,3' }] }, size);
    expect(added[0].id).toBe(3);
  });

  it.each<[string, Record<string, unknown>, VisionErrorCode]>([
    ['out of bounds x', { at: '400,10' }, 'out-of-bounds'],
    ['negative', { at: '-1,10' }, 'out-of-bounds'],
    ['box past edge', { at: '0,0,401,10' }, 'out-of-bounds'],
    ['degenerate box', { at: '10,10,10,20' }, 'degenerate-box'],
    ['reversed box', { at: '20,10,10,20' }, 'degenerate-box'],
    ['bad colour', { at: '1,1', colour: 'purple' }, 'bad-colour'],
    ['bad address', { at: '1;1' }, 'bad-address'],
    ['mark ref', { at: '#1' }, 'bad-address'],
    ['r zero', { at: '1,1', r: 0 }, 'bad-radius'],
    ['r huge', { at: '1,1', r: 401 }, 'bad-radius'],
    ['r fractional', { at: '1,1', r: 2.5 }, 'bad-radius'],
    ['r on box', { at: '1,1,5,5', r: 3 }, 'bad-radius'],
    ['long caption', { at: '1,1', caption: 'x'.repeat(201) }, 'bad-caption']
  ])('refuses %s without changing the record', (_label, mark, code) => {
    const before = marked('5,5');
    const args = { marks: [{ at: '6,6' }, mark as { at: string }] };
    expect(errorCode(() => applyMarkArgs(before, args, size))).toBe(code);
    expect(before.marks).toHaveLength(1);
  });

  it('puts the allowed extremes in bounds', () => {
    const { record } = applyMarkArgs(
      emptyRecord('a.png'),
      { marks: [{ at: '399,299' }, { at: '0,0,400,300' }, { at: '0,0', r: 400 }] },
      size
    );
    expect(record.marks).toHaveLength(3);
  });
});

describe('applyUpdateArgs', () => {
  it('moves, recaptions, recolours and removes, many per call', () => {
    const start = marked('1,1', '2,2', '3,3');
    const { record } = applyUpdateArgs(
      start,
      {
        ops: [
          { mark: 1, at: '10,10,20,20' },
          { mark: 2, caption: 'two', colour: 'blue' },
          { mark: 3, remove: true }
        ]
      },
      size
    );
    expect(record.marks).toEqual([
      { id: 1, kind: 'box', x0: 10, y0: 10, x1: 20, y1: 20, caption: '', colour: 'green' },
      { id: 2, kind: 'point', x: 2, y: 2, r: 6, caption: 'two', colour: 'blue' }
    ]);
    expect(record.lastId).toBe(3);
  });

  it.each<[string, Record<string, unknown>, VisionErrorCode]>([
    ['unknown mark', { mark: 9, caption: 'x' }, 'unknown-mark'],
    ['bad colour', { mark: 1, colour: 'pink' }, 'bad-colour'],
    ['out of bounds move', { mark: 1, at: '1000,1' }, 'out-of-bounds'],
    ['bad address', { mark: 1, at: 'here' }, 'bad-address'],
    ['nothing to do', { mark: 1 }, 'bad-args'],
    ['remove plus edit', { mark: 1, remove: true, caption: 'x' }, 'bad-args']
  ])('refuses %s, all or nothing', (_label, op, code) => {
    const start = marked('1,1', '2,2');
    const ops = [{ mark: 2, remove: true }, op as { mark: number }];
    expect(errorCode(() => applyUpdateArgs(start, { ops }, size))).toBe(code);
    expect(start.marks).toHaveLength(2);
  });

  it('refuses an operation on a mark removed earlier in the same call', () => {
    const start = marked('1,1');
    const ops = [
      { mark: 1, remove: true as const },
      { mark: 1, caption: 'x' }
    ];
    expect(errorCode(() => applyUpdateArgs(start, { ops }, size))).toBe('unknown-mark');
  });
});

describe('planVisionCall', () => {
  it('validates arguments strictly and names the field', () => {
    const record = emptyRecord('a.png');
    expect(() =>
      planVisionCall('vision_mark', { marks: [{ at: '1,1', label: 'x' }] }, record, size)
    ).toThrow(/label/);
    expect(errorCode(() => planVisionCall('vision_mark', { marks: [] }, record, size))).toBe(
      'bad-args'
    );
    expect(errorCode(() => planVisionCall('vision_show', { at: ['#4'] }, record, size))).toBe(
      'unknown-mark'
    );
  });

  it('chooses views: map by default, marks, none; show by address count', () => {
    const record = emptyRecord('a.png');
    const mark = (view?: string): unknown =>
      planVisionCall(
        'vision_mark',
        { marks: [{ at: '1,1' }], ...(view ? { view } : {}) },
        record,
        size
      ).views;
    expect(mark()).toEqual([{ kind: 'map' }]);
    expect(mark('marks')).toEqual([{ kind: 'marks', ids: [1] }]);
    expect(mark('none')).toEqual([]);
    const show = (args: object): unknown =>
      planVisionCall('vision_show', args, marked('5,5'), size).views;
    expect(show({})).toEqual([{ kind: 'map' }]);
    expect(show({ at: ['#1'], cover: ['red'] })).toEqual([
      { kind: 'closeup', at: '#1', cover: ['red'] }
    ]);
    expect(show({ at: ['#1', '3,4'] })).toEqual([{ kind: 'sheet', at: ['#1', '3,4'] }]);
  });

  it('says what changed, and lists one line per mark', () => {
    const plan = planVisionCall(
      'vision_mark',
      { marks: [{ at: '10,20', caption: 'eye', colour: 'red' }, { at: '1,2,3,4' }] },
      emptyRecord('a.png'),
      size
    );
    expect(plan.text).toBe(
      'Added #1 point 10,20 r 6 red "eye"; #2 box 1,2,3,4 green. a.png now has 2 marks.'
    );
    const list = planVisionCall('vision_list', {}, plan.record, size);
    expect(list.text.split('\n')).toEqual([
      'a.png (400×300): 2 marks:',
      '#1 point 10,20 r 6 red "eye"',
      '#2 box 1,2,3,4 green'
    ]);
    expect(list.record).toBe(plan.record);
  });
});
