/**
 * One record per picture: the chat's vision tools, given a Vision output's picture address or its
 * `cell:` address, work on the record the person edits in the widget (read from and written to
 * the widget's record), or, with the kernel gone, on the record saved in the output, and say so.
 * Results keep the record the call started from, so the fold and the replay show what the model
 * saw. Against the real figure server (real sharp and resvg over loopback).
 */
import { Conversation } from '../chat/conversation';
import { findSharedVision } from '../chat/tools/shared-vision';
import { VisionViews } from '../chat/vision-views';
import type { StoredMessage, ToolMessage } from '../tools/transcript';
import { foldVisionRecords, type VisionRecord } from '../tools/vision';
import {
  ADDRESS,
  CLICK,
  hostOf,
  liveWidgets,
  notebook,
  post,
  run,
  samplePicture,
  useSharedVision,
  WidgetRecord
} from './helpers/shared-vision';
import { assistant, call, user } from './helpers/transcripts';

useSharedVision();

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
    expect(output.picture).toEqual(samplePicture());
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
      picture: samplePicture(),
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
