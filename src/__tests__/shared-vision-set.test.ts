/**
 * The chat's vision tools and a VisionSet: any picture of the set, shown or not, is found by its
 * address in the set's bundle, starts from the marks saved for it, and is written through the
 * set's widget with that address (the kernel answers for that picture). Against the real figure
 * server (real sharp and resvg over loopback).
 */
import { findSharedVision } from '../chat/tools/shared-vision';
import { FIGURE_MIME } from '../tools/bundle';
import type { LiveVisionWidget, NotebookCellJson } from '../tools/host';
import type { VisionRecord } from '../tools/vision';
import {
  ADDRESS,
  hostOf,
  liveWidgets,
  notebook,
  run,
  samplePicture,
  samplePng,
  useSharedVision
} from './helpers/shared-vision';

useSharedVision();

describe('the vision tools work through a VisionSet', () => {
  const OTHER = 'pics/p0001.jpg';
  const UNREAD = 'picture-0002.png';
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
      return Promise.resolve(samplePng().toString('base64'));
    }
    /** As the kernel answers: the bytes and its sha-256 of them. */
    async pictureRead(
      signal: AbortSignal,
      address?: string
    ): Promise<{ data: string; sha256: string }> {
      return { data: await this.pictureData(signal, address), sha256: this.sha256 };
    }
    sha256 = samplePicture().sha256;
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
          { name: 'p0000.png', status: 'new', ...samplePicture() },
          {
            name: 'p0001.jpg',
            address: OTHER,
            status: 'new',
            sha256: samplePicture().sha256,
            width: 200,
            height: 150,
            ...(otherRecord ? { record: otherRecord } : {})
          },
          // An array the kernel has not read yet: no fingerprint, and no file of that name.
          { name: UNREAD, address: UNREAD, status: 'new' }
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

  it('finds a set picture the kernel has read, and leaves one it has not to readUnreadSetPicture', () => {
    expect(findSharedVision(setNotebook(), UNREAD, liveWidgets({}))).toBeNull();
    expect(findSharedVision(setNotebook(), OTHER, liveWidgets({}))?.where).toBe('output');
  });

  it('reads a set picture the kernel has not read yet when the model names it, and marks it', async () => {
    const widget = new SetWidget();
    const host = hostOf(setNotebook(), liveWidgets({ m1: widget }));
    const output = await run(host, 'vision_mark', {
      image: UNREAD,
      marks: [{ at: '20,20,60,50', label: 'apple' }]
    });
    expect(output.text).toContain('#1 box 20,20,60,50');
    expect(output.status).toBe('completed');
    // Asked of the set's kernel by address, fingerprinted from the bytes it sent.
    expect(widget.asked[0]).toBe(UNREAD);
    expect(output.picture).toEqual({ ...samplePicture(), address: UNREAD });
    expect(widget.written).toHaveLength(1);
    expect(widget.written[0].address).toBe(UNREAD);
    expect(widget.written[0].base).toEqual({
      image: UNREAD,
      classes: CLASSES,
      marks: [],
      lastId: 0
    });
  });

  it('says to run the set again when no kernel holds a set picture not read yet', async () => {
    const host = hostOf(setNotebook(), liveWidgets({}));
    const output = await run(host, 'vision_list', { image: UNREAD });
    expect(output.status).toBe('failed');
    expect(output.text).toBe(
      `Tool error: ${UNREAD} is a picture of the VisionSet in cell:v1/0 that its kernel had not read yet, and no running kernel holds that set (its kernel stopped or restarted), so it cannot be marked. Run the set's cell again: once the set is shown its kernel reads every picture, and then the vision tools can mark any of them.`
    );
  });

  it('refuses bytes that do not have the sha-256 the kernel gave them', async () => {
    const widget = new SetWidget();
    widget.sha256 = 'f'.repeat(64);
    const host = hostOf(setNotebook(), liveWidgets({ m1: widget }));
    const output = await run(host, 'vision_mark', { image: UNREAD, marks: [{ at: '5,5' }] });
    expect(output.status).toBe('failed');
    expect(output.text).toContain(`The picture ${UNREAD} changed since the conversation marked it`);
    expect(widget.written).toHaveLength(0);
  });

  it('passes on why the kernel could not give a set picture, and what to do', async () => {
    const widget = new SetWidget();
    widget.pictureRead = () =>
      Promise.reject(
        new Error('The kernel sent no picture: picture-0002.png: the picture is empty.')
      );
    const host = hostOf(setNotebook(), liveWidgets({ m1: widget }));
    const output = await run(host, 'vision_mark', { image: UNREAD, marks: [{ at: '5,5' }] });
    expect(output.status).toBe('failed');
    expect(output.text).toContain(
      'the kernel could not give it (The kernel sent no picture: picture-0002.png: the picture is empty). Show it in the set'
    );
    expect(widget.written).toHaveLength(0);
  });
});
