import {
  applyMarkArgs,
  applyUpdateArgs,
  checkClasses,
  classColour,
  describeMark,
  emptyRecord,
  foldVisionRecords,
  MAX_CLASSES,
  PALETTE,
  parseVisionArgs,
  planVisionCall,
  validateRecord,
  VisionError,
  type VisionErrorCode,
  type VisionRecord
} from '../tools/vision';
import type { StoredMessage } from '../tools/transcript';

const size = { width: 400, height: 300 };
const CLASSES = ['apple', 'orange', 'pear'];

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

function labelled(): VisionRecord {
  return applyMarkArgs(
    emptyRecord('fruit.png', CLASSES),
    {
      marks: [
        { at: '10,20,110,70', label: 'apple' },
        { at: '200,100', label: 'pear', colour: 'white' },
        { at: '50,50,90,50,70,90', label: 'orange' },
        { at: '5,5' }
      ]
    },
    size
  ).record;
}

describe('class colours', () => {
  it('gives class i the i-th palette colour, wrapping', () => {
    expect(classColour(CLASSES, 'apple')).toBe(PALETTE[0]);
    expect(classColour(CLASSES, 'pear')).toBe(PALETTE[2]);
    const many = Array.from({ length: 10 }, (_, i) => `c${i}`);
    expect(classColour(many, 'c8')).toBe(PALETTE[0]);
    expect(classColour(many, 'c9')).toBe(PALETTE[1]);
  });
});

describe('labels on marks', () => {
  it('labels marks of every kind, colours them by class unless a colour is named', () => {
    const record = labelled();
    expect(record.classes).toEqual(CLASSES);
    expect(record.marks.map(mark => [mark.kind, mark.label, mark.colour])).toEqual([
      ['box', 'apple', 'red'],
      ['point', 'pear', 'white'],
      ['polygon', 'orange', 'green'],
      ['point', undefined, 'green']
    ]);
    // An unlabelled mark has no label key at all: old records and new ones read the same.
    expect('label' in record.marks[3]).toBe(false);
    expect(describeMark(record.marks[0])).toBe('#1 box 10,20,110,70 red label "apple"');
  });

  it('relabels, recolouring to the new class; "" takes the label off', () => {
    const record = labelled();
    const next = applyUpdateArgs(
      record,
      {
        ops: [
          { mark: 1, label: 'pear' },
          { mark: 4, label: 'orange', colour: 'cyan' },
          { mark: 2, label: '' }
        ]
      },
      size
    ).record;
    expect(next.marks[0]).toMatchObject({ label: 'pear', colour: 'blue' });
    expect(next.marks[3]).toMatchObject({ label: 'orange', colour: 'cyan' });
    expect('label' in next.marks[1]).toBe(false);
    expect(next.classes).toEqual(CLASSES);
  });

  it('refuses labels that are not classes, and labels on a picture without classes', () => {
    const record = labelled();
    const unknown = errorOf(() =>
      applyMarkArgs(record, { marks: [{ at: '1,1', label: 'banana' }] }, size)
    );
    expect(unknown?.code).toBe('bad-label');
    expect(unknown?.message).toContain('apple, orange, pear');
    expect(
      codeOf(() => applyUpdateArgs(record, { ops: [{ mark: 1, label: 'Apple' }] }, size))
    ).toBe('bad-label');
    expect(
      codeOf(() =>
        applyMarkArgs(emptyRecord('p.png'), { marks: [{ at: '1,1', label: 'apple' }] }, size)
      )
    ).toBe('bad-label');
    expect(
      codeOf(() =>
        applyUpdateArgs(record, { ops: [{ mark: 1, label: 'apple', remove: true }] }, size)
      )
    ).toBe('bad-args');
  });

  it('tells the class list in vision_list', () => {
    const plan = planVisionCall('vision_list', {}, labelled(), size);
    expect(plan.text.split('\n')[0]).toBe(
      'fruit.png (400×300); classes: "apple", "orange", "pear": 4 marks:'
    );
    expect(plan.text).toContain('#3 polygon 50,50,90,50,70,90 green label "orange"');
    // A record without classes lists as before.
    expect(planVisionCall('vision_list', {}, emptyRecord('p.png'), size).text).toBe(
      'p.png (400×300): 0 marks.'
    );
  });

  it('takes label through the tool schemas, strictly', () => {
    expect(parseVisionArgs('vision_mark', { marks: [{ at: '1,1', label: 'apple' }] })).toEqual({
      marks: [{ at: '1,1', label: 'apple' }]
    });
    expect(codeOf(() => parseVisionArgs('vision_mark', { marks: [{ at: '1,1', label: 7 }] }))).toBe(
      'bad-args'
    );
    expect(
      codeOf(() => parseVisionArgs('vision_update', { ops: [{ mark: 1, label: 'x'.repeat(500) }] }))
    ).toBe('bad-args');
  });
});

describe('hostile records', () => {
  const good = (): Record<string, unknown> => JSON.parse(JSON.stringify(labelled()));

  it('reads a labelled record back unchanged, and an old record without classes', () => {
    expect(validateRecord(good(), size)).toEqual(labelled());
    const old = {
      image: 'p.png',
      marks: [{ id: 1, kind: 'box', x0: 1, y0: 1, x1: 5, y1: 5, caption: '', colour: 'red' }],
      lastId: 1
    };
    expect(validateRecord(old, size)).toEqual(old);
  });

  it('refuses labels not in classes, labels without classes, and bad class lists', () => {
    const record = good();
    const marks = record.marks as Record<string, unknown>[];
    marks[0].label = 'banana';
    expect(codeOf(() => validateRecord(record, size))).toBe('bad-label');
    const noClasses = good();
    delete noClasses.classes;
    expect(codeOf(() => validateRecord(noClasses, size))).toBe('bad-label');
    for (const classes of [
      [],
      ['a', 'a'],
      [''],
      [' apple'],
      ['a\u0000b'],
      ['x'.repeat(61)],
      Array.from({ length: MAX_CLASSES + 1 }, (_, i) => `c${i}`),
      'apple',
      [3]
    ]) {
      expect(codeOf(() => validateRecord({ ...good(), classes }, size))).toMatch(
        /bad-label|bad-args/
      );
    }
    expect(() => checkClasses(CLASSES)).not.toThrow();
  });
});

describe('the fold keeps classes and labels', () => {
  it('commits a labelled polygon call on a shared record with classes', () => {
    const picture = { address: 'cell:abc/0', sha256: 'f'.repeat(64), width: 400, height: 300 };
    const shared = emptyRecord('cell:abc/0', CLASSES);
    const messages: StoredMessage[] = [
      { id: 'u1', role: 'user', content: 'label it' },
      {
        id: 'a1',
        role: 'assistant',
        content: '',
        status: 'completed',
        tool_calls: [
          {
            id: 'c1',
            name: 'vision_mark',
            arguments: {
              image: 'cell:abc/0',
              marks: [{ at: '10,10,90,10,50,80', label: 'pear' }]
            }
          }
        ]
      },
      {
        id: 't1',
        role: 'tool',
        tool_call_id: 'c1',
        status: 'completed',
        content: 'Added',
        picture,
        record: { ...shared }
      }
    ];
    const state = foldVisionRecords(messages);
    expect(state.problems).toEqual([]);
    const record = state.records.get('cell:abc/0');
    expect(record?.classes).toEqual(CLASSES);
    expect(record?.marks[0]).toMatchObject({ kind: 'polygon', label: 'pear', colour: 'blue' });
  });
});
