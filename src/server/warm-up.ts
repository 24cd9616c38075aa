/**
 * A warm renderer for the first view a person waits for. The first render in a new figure server
 * pays for what every later render reuses (resvg's font database and the label glyphs, sharp's
 * decoders, encoders and thread pool): about 0.9 s on a loaded 2-core machine, against 0.15 s for
 * the next view. A reopened notebook's first visible view was that first render, so the server
 * draws a few tiny views of its own as soon as it listens (the labextension's start-up version
 * check starts it when JupyterLab loads).
 */
import { createHash } from 'node:crypto';

import sharp from 'sharp';

import { applyMarkArgs, emptyRecord, type ViewSpec } from '../tools/vision';
import type { Picture } from './pictures/pictures';
import { renderView } from './render/render';

/** What the warm-up draws: each kind of view, in each output format, over PNG and JPEG pictures. */
const WARM_VIEWS: ReadonlyArray<{ spec: ViewSpec; format: 'png' | 'model' }> = [
  { spec: { kind: 'map' }, format: 'png' },
  { spec: { kind: 'closeup', at: '#1' }, format: 'png' },
  { spec: { kind: 'sheet', at: ['#1', '#2'] }, format: 'model' }
];

async function warmPicture(format: 'png' | 'jpeg'): Promise<Picture> {
  const width = 64;
  const height = 48;
  const image = sharp({
    create: { width, height, channels: 3, background: { r: 96, g: 128, b: 160 } }
  });
  const bytes = await (format === 'png' ? image.png() : image.jpeg()).toBuffer();
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // An address no request can name (`cell:` ids come from notebooks), so the warm-up's views are
  // never mistaken for a real picture's; the view cache keys them by this sha-256 anyway.
  return { address: `cell:figure-chat-warm-up/${format}`, bytes, sha256, width, height, format };
}

/**
 * Draw the warm-up views; resolves to the milliseconds it took. Never rejects: a renderer that
 * cannot draw says so on the first real request, with the message the person needs.
 */
export async function warmRenderer(): Promise<number | undefined> {
  const start = performance.now();
  try {
    for (const format of ['png', 'jpeg'] as const) {
      const picture = await warmPicture(format);
      // Digits and letters in captions, so the label glyphs are outlined once here.
      const { record } = applyMarkArgs(
        emptyRecord(picture.address),
        {
          marks: [
            { at: '10,10,40,30', caption: 'warm 0123456789', colour: 'red' },
            { at: '50,20', caption: 'up', colour: 'yellow' }
          ]
        },
        picture
      );
      for (const { spec, format: out } of WARM_VIEWS) {
        await renderView(picture, spec, record, { format: out });
      }
    }
    return performance.now() - start;
  } catch {
    return undefined;
  }
}
