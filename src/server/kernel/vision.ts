/**
 * The vision ops of `figure-chat kernel`, for Python's `Vision`: a tool call on the kernel's record
 * (`vision`), a whole new mark list (`marks`), one view (`render`) and a record a person edited in
 * the widget (`check-record`). Each record passes `validateRecord`, as one read from a notebook.
 */
import { z } from 'zod';

import { isRecord } from '../../tools/guards';
import type { ToolRegistry } from '../../tools/registry';
import {
  classColour,
  DEFAULT_COLOUR,
  defaultRadius,
  isVisionTool,
  planVisionCall,
  validateRecord,
  ViewSpec,
  VisionError,
  type VisionRecord
} from '../../tools/vision';
import { KernelOpError, type KernelAnswer } from './answer';
import { kernelToolHost, renderStored, type StoredView } from './host';
import { cached, PictureRef } from './pictures';
import type { Picture } from '../pictures/pictures';

export const VisionRequest = z.object({
  picture: PictureRef,
  name: z.string(),
  args: z.unknown(),
  record: z.unknown()
});

export const RenderViewRequest = z.object({
  picture: PictureRef,
  record: z.unknown(),
  view: ViewSpec
});

export const MarksRequest = z.object({
  picture: PictureRef,
  record: z.unknown(),
  marks: z.array(z.unknown())
});

export const CheckRecordRequest = z.object({ picture: PictureRef, record: z.unknown() });

function recordOf(value: unknown, picture: Picture): VisionRecord {
  const record = validateRecord(value, picture);
  if (record.image !== picture.address) {
    throw new KernelOpError(
      'request',
      'bad-request',
      `the record is for ${record.image}, not ${picture.address}`
    );
  }
  return record;
}

/** The record as `vision_list` tells it: the text fallback of every vision output. */
function listText(record: VisionRecord, source: Picture): string {
  return planVisionCall('vision_list', {}, record, source).text;
}

function storedAnswer(
  source: Picture,
  record: VisionRecord,
  rendered: readonly StoredView[]
): KernelAnswer {
  return {
    json: {
      specs: rendered.map(view => view.spec),
      list: listText(record, source),
      views: rendered.map(({ width, height, caption, png }) => ({
        width,
        height,
        caption,
        length: png.length
      }))
    },
    payload: Buffer.concat(rendered.map(view => view.png))
  };
}

/**
 * `vision { picture, name, args, record }`: one vision tool call, run by the registry's handler
 * with the kernel as its host, on the record the kernel holds. The handler is called directly,
 * not through `registry.call`, so that its errors keep their codes for the Python exceptions.
 */
export async function visionOp(
  registry: ToolRegistry,
  body: z.infer<typeof VisionRequest>
): Promise<KernelAnswer> {
  const tool = registry.get(body.name);
  if (!tool || !isVisionTool(body.name)) {
    throw new KernelOpError('request', 'bad-request', `unknown vision tool ${body.name}`);
  }
  if (!isRecord(body.args)) {
    throw new KernelOpError('request', 'bad-request', 'vision: args must be an object');
  }
  const source = cached(body.picture);
  const kernel = kernelToolHost(source, recordOf(body.record, source));
  const output = await tool.run(
    { ...body.args, image: source.address },
    { signal: new AbortController().signal, host: kernel.host }
  );
  if (kernel.failure() !== undefined) {
    throw kernel.failure();
  }
  if (output.status !== 'completed') {
    throw new KernelOpError('vision', 'bad-args', output.text.replace(/^Tool error: /, ''));
  }
  const answer = storedAnswer(source, kernel.record(), kernel.views());
  return {
    json: { ...answer.json, record: kernel.record(), text: output.text },
    payload: answer.payload
  };
}

/**
 * `marks { picture, record, marks }`: a whole new mark list (`v.marks = detections`). A mark
 * without a number gets the next one, a missing caption, colour or radius its tool default (a
 * labelled mark its class's colour); then the record, with its class list, passes the same
 * validation as one read from a notebook.
 */
export function marksOp(body: z.infer<typeof MarksRequest>): KernelAnswer {
  const source = cached(body.picture);
  const previous = recordOf(body.record, source);
  const given = body.marks.map((mark, index) => {
    if (!isRecord(mark)) {
      throw new VisionError('bad-args', `marks.${index}: a mark is a dict, not ${typeof mark}.`);
    }
    return mark;
  });
  let lastId = Math.max(
    previous.lastId,
    ...given.map(mark => (typeof mark.id === 'number' ? mark.id : 0))
  );
  const filled = given.map(mark => {
    const kind = mark.kind ?? ('points' in mark ? 'polygon' : 'x0' in mark ? 'box' : 'point');
    const id = mark.id ?? ++lastId;
    const defaults =
      kind === 'point' ? { r: defaultRadius(source) } : ({} as Record<string, unknown>);
    const colour =
      typeof mark.label === 'string' ? classColour(previous.classes, mark.label) : DEFAULT_COLOUR;
    return { ...defaults, caption: '', colour, ...mark, id, kind };
  });
  const classes = previous.classes ? { classes: previous.classes } : {};
  const record = validateRecord(
    { image: source.address, ...classes, lastId, marks: filled },
    source
  );
  return { json: { record } };
}

/** `render { picture, record, view }`: one view of a record (the output's PNG). */
export async function renderOp(body: z.infer<typeof RenderViewRequest>): Promise<KernelAnswer> {
  const source = cached(body.picture);
  const record = recordOf(body.record, source);
  return storedAnswer(source, record, await renderStored(source, record, [body.view]));
}

/**
 * `check-record { picture, record }`: a record the widget's person edited, taken only if the tools
 * could have made it.
 */
export function checkRecordOp(body: z.infer<typeof CheckRecordRequest>): KernelAnswer {
  return { json: { record: recordOf(body.record, cached(body.picture)) } };
}
