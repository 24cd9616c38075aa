/**
 * The Vision editor's pure parts (src/kernel-bridge): resizing a box by a handle, the keys, the
 * editor's own undo history, a set's state from its untrusted trait, and whether the saved output
 * holds the marks the page had when its kernel went away. Every edit is checked through the
 * tools' own applyUpdateArgs, as the editor makes it.
 */
import { unsavedMarks } from '../kernel-bridge/gone-notice';
import { sameMarks } from '../kernel-bridge/same-record';
import { EditHistory } from '../kernel-bridge/vision-editor-history';
import { keyAction, runKey, type KeyTarget } from '../kernel-bridge/vision-editor-keys';
import { resizedAddress } from '../kernel-bridge/vision-editor-resize';
import { movedVertexAddress } from '../kernel-bridge/mark-shapes';
import { readSetState } from '../kernel-bridge/vision-set-bar';
import { FIGURE_MIME } from '../tools/bundle';
import {
  applyMarkArgs,
  applyUpdateArgs,
  type BoxMark,
  type UpdateOp,
  type VisionRecord
} from '../tools/vision';

const SIZE = { width: 400, height: 300 };

function withBox(): { record: VisionRecord; box: BoxMark } {
  const { record, added } = applyMarkArgs(
    { image: 'p.png', marks: [], lastId: 0 },
    { marks: [{ at: '100,100,200,180' }] },
    SIZE
  );
  return { record, box: added[0] as BoxMark };
}

function key(init: Partial<KeyboardEvent> & { key: string }): KeyboardEvent {
  return {
    ctrlKey: false,
    metaKey: false,
    shiftKey: false,
    altKey: false,
    ...init
  } as KeyboardEvent;
}

describe('resizing a box', () => {
  it('moves only the edges its handle names, in whole pixels, and the tools take it', () => {
    const { record, box } = withBox();
    const at = resizedAddress(box, 'se', 50, 40, SIZE.width, SIZE.height);
    expect(at).toBe('100,100,250,220');
    const next = applyUpdateArgs(record, { ops: [{ mark: 1, at }] }, SIZE).record;
    expect(next.marks[0]).toMatchObject({ kind: 'box', x0: 100, y0: 100, x1: 250, y1: 220 });
    expect(resizedAddress(box, 'n', 30, -20, 400, 300)).toBe('100,80,200,180');
    expect(resizedAddress(box, 'w', -7, 99, 400, 300)).toBe('93,100,200,180');
  });

  it('keeps the box inside the picture and at least a pixel wide', () => {
    const { box } = withBox();
    expect(resizedAddress(box, 'se', 1000, 1000, 400, 300)).toBe('100,100,400,300');
    expect(resizedAddress(box, 'nw', -1000, -1000, 400, 300)).toBe('0,0,200,180');
    // Dragged past the opposite edge: it stops one pixel short.
    expect(resizedAddress(box, 'e', -500, 0, 400, 300)).toBe('100,100,101,180');
    expect(resizedAddress(box, 's', 0, -500, 400, 300)).toBe('100,100,200,101');
  });
});

describe('moving a polygon vertex', () => {
  const TRIANGLE: [number, number][] = [
    [30, 30],
    [90, 20],
    [70, 80]
  ];

  it('moves that vertex alone, on pixel edges inside the picture, and the tools take it', () => {
    const { record } = applyMarkArgs(
      { image: 'p.png', marks: [], lastId: 0 },
      { marks: [{ at: TRIANGLE.flat().join(',') }] },
      SIZE
    );
    const at = movedVertexAddress(TRIANGLE, 1, 110, 40, SIZE.width, SIZE.height);
    expect(at).toBe('30,30,110,40,70,80');
    const next = applyUpdateArgs(record, { ops: [{ mark: 1, at }] }, SIZE).record;
    expect(next.marks[0]).toMatchObject({
      kind: 'polygon',
      points: [
        [30, 30],
        [110, 40],
        [70, 80]
      ]
    });
    // A vertex sits on a pixel edge, so the picture's far edges are allowed, not beyond.
    expect(movedVertexAddress(TRIANGLE, 2, 999, -5, 400, 300)).toBe('30,30,90,20,400,0');
  });

  it('leaves a polygon without area to the tools, which refuse it', () => {
    const { record } = applyMarkArgs(
      { image: 'p.png', marks: [], lastId: 0 },
      { marks: [{ at: TRIANGLE.flat().join(',') }] },
      SIZE
    );
    const flat = movedVertexAddress(TRIANGLE, 2, 150, 10, SIZE.width, SIZE.height);
    expect(() => applyUpdateArgs(record, { ops: [{ mark: 1, at: flat }] }, SIZE)).toThrow();
  });
});

describe('keys', () => {
  it('maps arrows, Shift+arrows, undo/redo and class digits, and leaves other keys alone', () => {
    expect(keyAction(key({ key: 'ArrowLeft' }))).toEqual({ kind: 'move', dx: -1, dy: 0 });
    expect(keyAction(key({ key: 'ArrowDown', ctrlKey: true }))).toEqual({
      kind: 'move',
      dx: 0,
      dy: 10
    });
    expect(keyAction(key({ key: 'ArrowRight', shiftKey: true }))).toEqual({
      kind: 'resize',
      handle: 'e',
      by: 1
    });
    expect(keyAction(key({ key: 'ArrowUp', shiftKey: true }))).toEqual({
      kind: 'resize',
      handle: 's',
      by: -1
    });
    expect(keyAction(key({ key: 'z', ctrlKey: true }))).toEqual({ kind: 'undo' });
    expect(keyAction(key({ key: 'Z', metaKey: true, shiftKey: true }))).toEqual({ kind: 'redo' });
    expect(keyAction(key({ key: 'y', ctrlKey: true }))).toEqual({ kind: 'redo' });
    expect(keyAction(key({ key: '3' }))).toEqual({ kind: 'class', index: 2 });
    // Keys JupyterLab must keep: run the cell, save, and anything with Alt.
    expect(keyAction(key({ key: 'Enter', shiftKey: true }))).toBeNull();
    expect(keyAction(key({ key: 's', ctrlKey: true }))).toBeNull();
    expect(keyAction(key({ key: 'ArrowLeft', altKey: true }))).toBeNull();
    expect(keyAction(key({ key: 'a' }))).toBeNull();
  });

  function target(record: VisionRecord, selected: number | null, isSet = false) {
    const done: string[] = [];
    const ops: UpdateOp[] = [];
    const t: KeyTarget = {
      selected: () => record.marks.find(mark => mark.id === selected),
      size: SIZE,
      polygon: {
        drawingPolygon: false,
        closePolygon: () => done.push('close'),
        cancelPolygon: () => done.push('cancel'),
        dropVertex: () => done.push('drop')
      },
      setKey: action => (isSet ? (done.push(action), true) : false),
      undoRedo: which => done.push(which),
      deselect: () => done.push('deselect'),
      classCount: () => record.classes?.length ?? 0,
      pickClass: index => done.push(`class ${index}`),
      removeSelected: () => done.push('remove'),
      editCaption: () => done.push('caption'),
      update: op => ops.push(op)
    };
    return { t, done, ops };
  }

  it('moves and resizes the selected box through update ops the tools take', () => {
    const { record } = withBox();
    const { t, ops } = target(record, 1);
    expect(runKey({ kind: 'move', dx: -1, dy: 0 }, t)).toBe(true);
    expect(runKey({ kind: 'resize', handle: 'e', by: 2 }, t)).toBe(true);
    expect(ops).toEqual([
      { mark: 1, at: '99,100,199,180' },
      { mark: 1, at: '100,100,202,180' }
    ]);
    for (const op of ops) {
      expect(() => applyUpdateArgs(record, { ops: [op] }, SIZE)).not.toThrow();
    }
  });

  it('with no mark selected: arrows and Enter go to a set, and to JupyterLab otherwise', () => {
    const { record } = withBox();
    const plain = target(record, null);
    expect(runKey({ kind: 'move', dx: 1, dy: 0 }, plain.t)).toBe(false);
    expect(runKey({ kind: 'caption' }, plain.t)).toBe(false);
    const set = target(record, null, true);
    expect(runKey({ kind: 'move', dx: 1, dy: 0 }, set.t)).toBe(true);
    expect(runKey({ kind: 'move', dx: -1, dy: 0 }, set.t)).toBe(true);
    expect(runKey({ kind: 'caption' }, set.t)).toBe(true);
    expect(set.done).toEqual(['next', 'prev', 'submit']);
    // A digit with no class list is not the widget's (JupyterLab's 1-6 heading keys stay).
    expect(runKey({ kind: 'class', index: 0 }, plain.t)).toBe(false);
  });
});

describe('undo history', () => {
  it('undoes and redoes, and never hands a mark number out twice', () => {
    const empty: VisionRecord = { image: 'p.png', marks: [], lastId: 0 };
    const one = applyMarkArgs(empty, { marks: [{ at: '1,1' }] }, SIZE).record;
    const history = new EditHistory();
    history.edited(empty);
    const undone = history.undo(one);
    expect(undone?.marks).toEqual([]);
    // lastId stays at 1, so the next mark is #2, not a second #1.
    expect(undone?.lastId).toBe(1);
    expect(applyMarkArgs(undone!, { marks: [{ at: '2,2' }] }, SIZE).added[0].id).toBe(2);
    expect(history.redo(undone!)).toEqual(one);
    expect(history.canRedo).toBe(false);
    history.clear();
    expect(history.canUndo).toBe(false);
    expect(history.undo(one)).toBeNull();
  });
});

describe('a set state from the kernel', () => {
  it('reads a well-formed _set and refuses anything else', () => {
    expect(
      readSetState({ index: 1, count: 5, labelled: 2, name: 'b.png', status: 'submitted' })
    ).toEqual({ index: 1, count: 5, labelled: 2, name: 'b.png', status: 'submitted' });
    expect(readSetState({})).toBeNull();
    expect(readSetState({ index: 5, count: 5, labelled: 0 })).toBeNull();
    expect(readSetState({ index: -1, count: 5, labelled: 0 })).toBeNull();
    expect(readSetState([1, 2])).toBeNull();
    expect(readSetState({ index: 0, count: 2, labelled: 9, name: 7, status: 'odd' })).toEqual({
      index: 0,
      count: 2,
      labelled: 2,
      name: '',
      status: 'new'
    });
  });
});

describe('edits the kernel never saved', () => {
  it('compares the saved bundle with the page record by content, whatever the key order', () => {
    const { record } = withBox();
    const reordered = {
      lastId: record.lastId,
      marks: record.marks.map(mark => Object.fromEntries(Object.entries(mark).reverse())),
      image: record.image
    };
    expect(sameMarks(record, reordered)).toBe(true);
    const data = { [FIGURE_MIME]: { record: reordered } };
    expect(unsavedMarks(data, { reason: 'restarted', record })).toBeNull();
    const more = applyMarkArgs(record, { marks: [{ at: '5,5' }] }, SIZE).record;
    expect(unsavedMarks(data, { reason: 'restarted', record: more })).toHaveLength(2);
    // No bundle to compare with: nothing is claimed.
    expect(unsavedMarks({}, { reason: 'stopped', record: more })).toBeNull();
  });
});
