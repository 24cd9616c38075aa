/**
 * Pinning (SPEC 10): which figure or view a call id names, and the Markdown cell that carries its
 * bundle, PNG and SVG in a form Clear All Outputs cannot touch and nbconvert can show.
 */
import { FIGURE_MIME, parseOutputBundle } from '../tools/bundle';
import { bundleViewOf, pinnedCell, pinnedOutputData, viewSpecOf, visionBundle } from '../tools/pin';
import { findPinTarget, pinTargets } from '../tools/pin-source';
import type { StoredMessage, ToolMessage } from '../tools/transcript';
import type { ViewSpec } from '../tools/vision';
import { assistant, call, figureSvg, result, user } from './helpers/transcripts';

const SHA = 'a'.repeat(64);
const picture = { address: 'plot.png', sha256: SHA, width: 400, height: 300 };

function visionResult(id: string, callId: string): ToolMessage {
  return { ...result(id, callId, 'ok'), picture };
}

const messages: StoredMessage[] = [
  user('u1', 'draw and mark'),
  assistant('a1', '', [
    call('c1', 'present_svg', { svg: figureSvg('one'), alt: 'First figure' }),
    call('c2', 'vision_mark', {
      image: 'plot.png',
      marks: [{ at: '10,10,50,40', caption: 'peak', colour: 'red' }]
    })
  ]),
  result('r1', 'c1', 'shown'),
  visionResult('r2', 'c2'),
  assistant('a2', '', [call('c3', 'vision_show', { at: ['#1', '100,100'] })]),
  visionResult('r3', 'c3'),
  assistant('a3', '', [call('c4', 'present_svg', { svg: figureSvg('two'), alt: 'Failed' })]),
  result('r4', 'c4', 'refused', 'failed')
];

describe('findPinTarget', () => {
  it('lists completed figures and every view in call order', () => {
    const targets = pinTargets(messages);
    expect(targets.map(t => `${t.source.message}/${t.source.call}/${t.kind}`)).toEqual([
      'a1/c1/figure',
      'a1/c2/vision',
      'a2/c3/vision'
    ]);
  });

  it('finds a view by call id with the record as that call saw it', () => {
    const found = findPinTarget(messages, { call: 'c3' });
    expect(found.ok).toBe(true);
    if (found.ok && found.value.kind === 'vision') {
      expect(found.value.spec).toEqual({ kind: 'sheet', at: ['#1', '100,100'] });
      expect(found.value.record.marks.map(mark => mark.caption)).toEqual(['peak']);
    } else {
      throw new Error('expected a vision target');
    }
  });

  it('takes the latest when no call is named, and explains what is missing', () => {
    const latest = findPinTarget(messages, {});
    expect(latest.ok && latest.value.source.call).toBe('c3');
    const failed = findPinTarget(messages, { call: 'c4' });
    expect(failed).toEqual({ ok: false, error: expect.stringContaining('c4') });
    const noView = findPinTarget(messages, { call: 'c2', view: 3 });
    expect(noView).toEqual({ ok: false, error: expect.stringContaining('view 3') });
    expect(findPinTarget([], {})).toEqual({
      ok: false,
      error: expect.stringContaining('no figure')
    });
  });
});

describe('bundle views', () => {
  const specs: ViewSpec[] = [
    { kind: 'map' },
    { kind: 'map', cover: ['red'] },
    { kind: 'marks', ids: [1, 2] },
    { kind: 'closeup', at: '#1' },
    { kind: 'sheet', at: ['#1', '5,5'], cover: ['blue'] }
  ];
  it.each(specs)('round-trips %j', spec => {
    expect(viewSpecOf(bundleViewOf(spec))).toEqual(spec);
  });

  it('refuses a view no renderer can draw', () => {
    expect(viewSpecOf({ kind: 'marks', ids: [] })).toBeNull();
    expect(viewSpecOf({ kind: 'map', cover: ['not-a-colour'] })).toBeNull();
  });
});

describe('pinnedCell', () => {
  it('is a Markdown cell whose image attachment is PNG only and whose bundle parses', () => {
    const target = findPinTarget(messages, { call: 'c1' });
    if (!target.ok || target.value.kind !== 'figure') {
      throw new Error('expected the figure');
    }
    const svg = target.value.svg;
    const cell = pinnedCell({
      bundle: { version: 1, kind: 'figure', alt: 'First [figure]', source: target.value.source },
      png: 'iVBORw0KGgo=',
      text: 'First [figure]',
      svg
    });
    expect(cell.cell_type).toBe('markdown');
    expect(cell.metadata).toEqual({ figure_chat: { source: { message: 'a1', call: 'c1' } } });
    expect(cell.source).toBe(
      '![First \\[figure\\]](attachment:figure-chat-c1.png)\n\n<!-- figure-chat-c1.figure-chat.json -->'
    );
    // JupyterLab shows an attachment's first MIME type and drops attachments the source does not
    // name when it saves: the image attachment is PNG alone, and every name is in the source.
    expect(Object.keys(cell.attachments['figure-chat-c1.png'])).toEqual(['image/png']);
    for (const name of Object.keys(cell.attachments)) {
      expect(cell.source).toContain(name);
    }
    // The SVG is stored once, as text.
    expect(JSON.stringify(cell).split('<svg').length - 1).toBe(1);
    const data = pinnedOutputData(JSON.parse(JSON.stringify(cell.attachments)));
    expect(data?.png).toBe('iVBORw0KGgo=');
    expect(data?.data['image/svg+xml']).toBe(svg);
    expect(parseOutputBundle(data?.data[FIGURE_MIME]).ok).toBe(true);
  });

  it('names each view of one call apart', () => {
    const bundle = visionBundle(
      picture,
      { image: 'plot.png', marks: [], lastId: 0 },
      { kind: 'map' },
      {
        message: 'a2',
        call: 'c3'
      }
    );
    const names = [0, 1].map(i =>
      Object.keys(pinnedCell({ bundle, png: 'AA==', text: 'map' }, `view${i}`).attachments)
    );
    expect(names[0]).not.toEqual(names[1]);
    expect(parseOutputBundle(bundle).ok).toBe(true);
  });
});
