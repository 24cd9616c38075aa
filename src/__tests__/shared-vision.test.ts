/**
 * One record per picture: the chat's vision tools, given a Vision output's picture address or its
 * `cell:` address, work on the record the person edits in the widget (read from and written to
 * the widget's record), or, with the kernel gone, on the record saved in the output, and say so.
 * Results keep the record the call started from, so the fold and the replay show what the model
 * saw. Against the real figure server (real sharp and resvg over loopback).
 */
import { createHash } from 'node:crypto';

import sharp from 'sharp';

import { Conversation } from '../chat/conversation';
import { findSharedVision, LIVE_WIDGET_MIME } from '../chat/tools/shared-vision';
import { visionTools } from '../chat/tools/vision';
import { VisionViews } from '../chat/vision-views';
import { FIGURE_MIME } from '../tools/bundle';
import type {
  LiveVisionWidget,
  LiveVisionWidgets,
  NotebookCellJson,
  ToolHost
} from '../tools/host';
import { ToolRegistry, type ToolOutput } from '../tools/registry';
import type { StoredMessage, ToolMessage } from '../tools/transcript';
import { foldVisionRecords, type VisionRecord } from '../tools/vision';
import { useFigureServer } from './helpers/loopback';
import { assistant, call, user } from './helpers/transcripts';

const figureServer = useFigureServer('fc-shared-');

const ADDRESS = 'array-0123456789ab';
let png: Buffer;
let picture: { address: string; sha256: string; width: number; height: number };

beforeAll(async () => {
  png = await sharp({
    create: { width: 200, height: 150, channels: 3, background: { r: 90, g: 140, b: 200 } }
  })
    .png()
    .toBuffer();
  picture = {
    address: ADDRESS,
    sha256: createHash('sha256').update(png).digest('hex'),
    width: 200,
    height: 150
  };
});

/** The person's click, as the widget writes it. */
const CLICK = {
  id: 1,
  kind: 'point',
  x: 40,
  y: 30,
  r: 4,
  caption: 'clicked',
  colour: 'yellow'
};

/**
 * A widget's record as the kernel bridge keeps it: the marks in `_record`, the picture's bytes
 * with the kernel (counted, to see they cross once per use).
 */
class WidgetRecord implements LiveVisionWidget {
  value: unknown;
  writes = 0;
  pictureAsks = 0;
  constructor(marks: unknown[]) {
    this.value = { image: ADDRESS, marks, lastId: marks.length };
  }
  record(): unknown {
    return this.value;
  }
  /** What the kernel answers a write with, when it refuses it. */
  refusal: string | null = null;
  /** The record each write was planned from. */
  bases: unknown[] = [];
  write(record: VisionRecord, base: unknown): Promise<void> {
    this.writes += 1;
    this.bases.push(base);
    if (this.refusal) {
      return Promise.reject(new Error(this.refusal));
    }
    this.value = record;
    return Promise.resolve();
  }
  pictureData(): Promise<string> {
    this.pictureAsks += 1;
    return Promise.resolve(png.toString('base64'));
  }
}

function liveWidgets(widgets: Record<string, LiveVisionWidget>): LiveVisionWidgets {
  return { widget: id => widgets[id] };
}

/** A notebook whose cell `v1` shows a Vision output; its saved record has `savedMarks`. */
function notebook(savedMarks: unknown[] = []): NotebookCellJson[] {
  return [
    {
      id: 'v1',
      cell_type: 'code',
      source: 'v = Vision(picture)\nv',
      outputs: [
        {
          output_type: 'display_data',
          data: {
            [LIVE_WIDGET_MIME]: { version: 1, model_id: 'm1' },
            [FIGURE_MIME]: {
              version: 1,
              kind: 'vision',
              picture,
              record: { image: ADDRESS, marks: savedMarks },
              view: { kind: 'map' }
            },
            'image/png': 'iVBORw0KGgo=',
            'text/plain': 'marks'
          },
          metadata: {}
        }
      ]
    }
  ];
}

async function post<T>(route: string, body: unknown, signal: AbortSignal): Promise<T> {
  const response = await fetch(`${figureServer.url}/figure-chat/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal
  });
  if (response.ok && response.headers.get('Content-Type') === 'application/octet-stream') {
    return new Uint8Array(await response.arrayBuffer()) as T;
  }
  const data = (await response.json()) as T & { error?: { message: string } };
  if (!response.ok) {
    throw new Error(data.error?.message ?? String(response.status));
  }
  return data;
}

function hostOf(
  cells: NotebookCellJson[],
  live: LiveVisionWidgets | null,
  messages: StoredMessage[] = []
): ToolHost {
  const owner = {};
  return {
    kind: 'notebook-with-vision',
    cells: () => cells,
    pictureData: () => undefined,
    request: post,
    vision: {
      messages: () => messages,
      owner,
      shared: address => findSharedVision(cells, address, live)
    }
  };
}

function run(host: ToolHost, name: string, args: Record<string, unknown>): Promise<ToolOutput> {
  const registry = new ToolRegistry();
  for (const tool of visionTools) {
    registry.register(tool);
  }
  return registry.call(name, args, { signal: new AbortController().signal, host });
}

describe('the vision tools share a Vision widget record', () => {
  it('lists what the person clicked, by the picture address notebook_read gives', async () => {
    const widget = new WidgetRecord([CLICK]);
    // The saved output is behind the widget: the live record is the one that counts.
    const output = await run(hostOf(notebook([]), liveWidgets({ m1: widget })), 'vision_list', {
      image: ADDRESS
    });
    expect(output.status).toBe('completed');
    expect(output.text).toContain('#1');
    expect(output.text).toContain('clicked');
    expect(output.picture).toEqual(picture);
    expect(output.record?.marks).toEqual([CLICK]);
    expect(widget.writes).toBe(0);
  });

  it('writes the model marks to the widget, numbered after the click, with views from the kernel bytes', async () => {
    const widget = new WidgetRecord([CLICK]);
    const output = await run(hostOf(notebook(), liveWidgets({ m1: widget })), 'vision_mark', {
      image: 'cell:v1/0',
      marks: [{ at: '100,60,160,120', caption: 'colony' }]
    });
    expect(output.status).toBe('completed');
    expect(output.text).not.toContain('kernel is gone');
    const record = widget.value as VisionRecord;
    expect(record.marks.map(mark => [mark.id, mark.caption])).toEqual([
      [1, 'clicked'],
      [2, 'colony']
    ]);
    expect(widget.writes).toBe(1);
    expect(widget.pictureAsks).toBe(1);
    expect(output.images?.length).toBeGreaterThan(0);
    // The result keeps the marks the call started from, and names the picture, not the output.
    expect(output.record?.marks).toEqual([CLICK]);
    expect(output.picture?.address).toBe(ADDRESS);
  });

  it('reports a write the kernel refused as the tool error, and keeps the kernel marks', async () => {
    const widget = new WidgetRecord([CLICK]);
    widget.refusal = 'The kernel refused these marks: the marks changed while this call ran.';
    const host = hostOf(notebook(), liveWidgets({ m1: widget }));
    const output = await run(host, 'vision_mark', {
      image: ADDRESS,
      marks: [{ at: '100,60', caption: 'colony' }]
    });
    expect(output.status).toBe('failed');
    expect(output.text).toBe(`Tool error: ${widget.refusal}`);
    // The write was planned from the marks the call read; nothing else took the new ones.
    expect(widget.bases).toEqual([{ image: ADDRESS, marks: [CLICK], lastId: 1 }]);
    expect((widget.value as VisionRecord).marks).toEqual([CLICK]);
    widget.refusal = null;
    const listed = await run(host, 'vision_list', { image: ADDRESS });
    expect(listed.text).not.toContain('colony');
  });

  it('refuses a widget record that is not one a tool could make, naming the picture', async () => {
    const widget = new WidgetRecord([{ ...CLICK, x: 9999 }]);
    const output = await run(hostOf(notebook(), liveWidgets({ m1: widget })), 'vision_list', {
      image: ADDRESS
    });
    expect(output.status).toBe('failed');
    expect(output.text).toContain(`the marks of ${ADDRESS} in its Vision output are unreadable`);
  });

  it('with the kernel gone, starts from the saved record and says the marks stay in the chat', async () => {
    const output = await run(hostOf(notebook([CLICK]), liveWidgets({})), 'vision_mark', {
      image: ADDRESS,
      marks: [{ at: '10,10' }]
    });
    expect(output.status).toBe('completed');
    expect(output.text).toContain('Added #2');
    expect(output.text).toContain('its kernel is gone');
    // No one holds the pixels any more: the marks are kept, the views are reported missing.
    expect(output.text).toContain('The views could not be rendered');
    expect(output.record?.marks).toEqual([CLICK]);
  });

  it('leaves pictures no Vision output holds to the conversation', () => {
    expect(findSharedVision(notebook(), 'photo.png', liveWidgets({}))).toBeNull();
    expect(findSharedVision(null, ADDRESS, null)).toBeNull();
  });
});

describe('a shared record in the transcript', () => {
  function sharedTranscript(): StoredMessage[] {
    const markResult: ToolMessage = {
      id: 't1',
      role: 'tool',
      tool_call_id: 'c1',
      status: 'completed',
      content: 'Added #2.',
      picture,
      record: { image: ADDRESS, marks: [CLICK], lastId: 1 }
    };
    return [
      user('u1', 'mark the colony'),
      assistant('a1', '', [
        call('c1', 'vision_mark', { image: 'cell:v1/0', marks: [{ at: '100,60,160,120' }] })
      ]),
      markResult
    ];
  }

  it('folds from the record the call saw, even when it named the output', () => {
    const state = foldVisionRecords(sharedTranscript());
    expect(state.problems).toEqual([]);
    expect(state.current).toBe(ADDRESS);
    expect(state.records.get(ADDRESS)?.marks.map(mark => mark.id)).toEqual([1, 2]);
  });

  it('replays the views of what the model saw, with the picture from the widget', async () => {
    const conversation = new Conversation();
    conversation.load({ version: 1, messages: sharedTranscript() });
    const widget = new WidgetRecord([]);
    const cells = notebook();
    const views = new VisionViews(conversation, {
      notebook: () => null,
      request: post,
      shared: address => findSharedVision(cells, address, liveWidgets({ m1: widget }))
    });
    try {
      await new Promise<void>(resolve => {
        const check = (): void => {
          if (views.state('c1').kind !== 'rendering') {
            views.changed.disconnect(check);
            resolve();
          }
        };
        views.changed.connect(check);
        check();
      });
      const state = views.state('c1');
      expect(state.kind).toBe('ready');
      if (state.kind === 'ready') {
        expect(state.record.marks.map(mark => mark.id)).toEqual([1, 2]);
        expect(state.views.length).toBeGreaterThan(0);
      }
      expect(widget.pictureAsks).toBe(1);
    } finally {
      views.dispose();
    }
  });
});

describe('the vision tools work through a VisionSet', () => {
  const OTHER = 'pics/p0001.jpg';
  const CLASSES = ['apple', 'pear'];

  /** A set's widget: the shown picture's record, and what the kernel took for each address. */
  class SetWidget implements LiveVisionWidget {
    shown: unknown = { image: ADDRESS, classes: CLASSES, marks: [], lastId: 0 };
    written: Array<{ address?: string; record: VisionRecord; base: unknown }> = [];
    asked: Array<string | undefined> = [];
    record(): unknown {
      return this.shown;
    }
    write(
      record: VisionRecord,
      base: unknown,
      _signal: AbortSignal,
      address?: string
    ): Promise<void> {
      this.written.push({ address, record, base });
      if (address === ADDRESS) {
        this.shown = record;
      }
      return Promise.resolve();
    }
    pictureData(_signal: AbortSignal, address?: string): Promise<string> {
      this.asked.push(address);
      return Promise.resolve(png.toString('base64'));
    }
  }

  function setNotebook(otherRecord?: unknown): NotebookCellJson[] {
    const cells = notebook();
    const output = (
      cells[0].outputs as Array<{ data: Record<string, Record<string, unknown>> }>
    )[0];
    output.data[FIGURE_MIME] = {
      ...output.data[FIGURE_MIME],
      record: { image: ADDRESS, classes: CLASSES, marks: [], lastId: 0 },
      set: {
        index: 0,
        count: 3,
        labelled: 0,
        pictures: [
          { name: 'p0000.png', status: 'new', ...picture },
          {
            name: 'p0001.jpg',
            address: OTHER,
            status: 'new',
            sha256: picture.sha256,
            width: 200,
            height: 150,
            ...(otherRecord ? { record: otherRecord } : {})
          },
          // Not read by the kernel yet: no fingerprint, so the chat cannot draw it yet.
          { name: 'p0002.jpg', address: 'pics/p0002.jpg', status: 'new' }
        ]
      }
    };
    return cells;
  }

  it('marks a picture the set does not show, by its address, through the set widget', async () => {
    const widget = new SetWidget();
    const host = hostOf(setNotebook(), liveWidgets({ m1: widget }));
    const output = await run(host, 'vision_mark', {
      image: OTHER,
      marks: [{ at: '10,10,90,10,50,80', label: 'pear' }]
    });
    expect(output.status).toBe('completed');
    expect(output.text).toContain('#1 polygon 10,10,90,10,50,80 green label "pear"');
    expect(widget.written).toHaveLength(1);
    expect(widget.written[0].address).toBe(OTHER);
    expect(widget.written[0].record.classes).toEqual(CLASSES);
    expect(widget.written[0].base).toEqual({
      image: OTHER,
      classes: CLASSES,
      marks: [],
      lastId: 0
    });
    expect(widget.asked).toEqual([OTHER]);
    expect(output.picture?.address).toBe(OTHER);
    // The shown picture is named too, so a widget that moved on cannot take it for another one.
    const shown = await run(host, 'vision_mark', {
      image: ADDRESS,
      marks: [{ at: '5,5', label: 'apple' }]
    });
    expect(shown.status).toBe('completed');
    expect(widget.written[1].address).toBe(ADDRESS);
  });

  it('starts from the marks the bundle saved for that picture, and refuses labels not in the classes', async () => {
    const saved = {
      image: OTHER,
      classes: CLASSES,
      marks: [
        {
          id: 4,
          kind: 'box',
          x0: 1,
          y0: 1,
          x1: 20,
          y1: 20,
          caption: '',
          colour: 'red',
          label: 'apple'
        }
      ],
      lastId: 4
    };
    const widget = new SetWidget();
    const host = hostOf(setNotebook(saved), liveWidgets({ m1: widget }));
    const listed = await run(host, 'vision_list', { image: OTHER });
    expect(listed.text).toContain('classes: "apple", "pear"');
    expect(listed.text).toContain('#4 box 1,1,20,20 red label "apple"');
    const refused = await run(host, 'vision_mark', {
      image: OTHER,
      marks: [{ at: '3,3', label: 'plum' }]
    });
    expect(refused.status).toBe('failed');
    expect(refused.text).toContain('"plum" is not one of the classes');
    expect(widget.written).toHaveLength(0);
  });

  it('leaves a set picture the kernel has not read yet to the conversation', () => {
    expect(findSharedVision(setNotebook(), 'pics/p0002.jpg', liveWidgets({}))).toBeNull();
    expect(findSharedVision(setNotebook(), OTHER, liveWidgets({}))?.where).toBe('output');
  });
});
