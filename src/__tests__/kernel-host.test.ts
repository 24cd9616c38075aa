/**
 * The kernel program runs the registry's vision handlers through a Node-side ToolHost (the one
 * tool registry for the chat and the kernel): the handler plans the call on the kernel's record,
 * the host renders in process with real sharp and resvg, and errors keep the tool's code and
 * message for the Python exceptions.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { kernelToolHost, renderStored } from '../server/kernel/host';
import { KernelOpError, runKernelOp } from '../server/kernel/ops';
import { readHeader, type Picture } from '../server/pictures/pictures';
import { renderView } from '../server/render/render';
import { checkSvg } from '../server/svg/svg';
import { ToolRegistry } from '../tools/registry';
import { emptyRecord, planVisionCall, type VisionRecord } from '../tools/vision';
import { visionTools } from '../tools/vision-tools';
import { photoPixels } from './helpers/photo';

const PNG_SIGNATURE = '89504e470d0a1a0a';

async function sendPicture(): Promise<{ address: string; sha256: string }> {
  const png = await sharp({
    create: { width: 400, height: 300, channels: 3, background: { r: 200, g: 200, b: 200 } }
  })
    .png()
    .toBuffer();
  const answer = await runKernelOp({ op: 'picture', address: 'array-kernelhost' }, png);
  return { address: 'array-kernelhost', sha256: String(answer.json.sha256) };
}

/** A flat-coloured picture as the kernel program holds one, without going through the pipe. */
async function flatPicture(
  address: string,
  width: number,
  height: number,
  format: 'png' | 'jpeg'
): Promise<Picture> {
  const image = sharp({
    create: { width, height, channels: 3, background: { r: 200, g: 160, b: 90 } }
  });
  const bytes = await (format === 'png' ? image.png() : image.jpeg()).toBuffer();
  return {
    address,
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    ...(await readHeader(bytes, address))
  };
}

describe('the kernel program as a ToolHost', () => {
  it('runs vision_mark through the registry handler and returns its text, record and views', async () => {
    const picture = await sendPicture();
    const before = {
      image: picture.address,
      marks: [{ id: 1, kind: 'point', x: 10, y: 10, r: 6, caption: 'clicked', colour: 'yellow' }],
      lastId: 1
    };
    const args = { marks: [{ at: '100,100,200,180', caption: 'colony' }] };
    const answer = await runKernelOp(
      { op: 'vision', picture, name: 'vision_mark', args, record: before },
      Buffer.alloc(0)
    );
    const expected = planVisionCall('vision_mark', args, before as VisionRecord, {
      width: 400,
      height: 300
    });
    expect(answer.json.text).toBe(expected.text);
    expect(answer.json.record).toEqual(expected.record);
    expect(answer.json.specs).toEqual(expected.views);
    const views = answer.json.views as Array<{ length: number }>;
    expect(views).toHaveLength(1);
    expect(answer.payload?.subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
    expect(answer.payload?.length).toBe(views[0].length);
  });

  it('lets the handler write the shared record and keeps the stored-quality views it drew', async () => {
    const address = 'array-direct';
    const source = await flatPicture(address, 400, 300, 'png');
    const registry = new ToolRegistry();
    for (const tool of visionTools) {
      registry.register(tool);
    }
    const kernel = kernelToolHost(source, emptyRecord(address));
    const output = await registry.call(
      'vision_mark',
      { image: address, marks: [{ at: '50,60' }] },
      { signal: new AbortController().signal, host: kernel.host }
    );
    expect(output.status).toBe('completed');
    expect(kernel.record().marks.map(mark => [mark.id, mark.kind])).toEqual([[1, 'point']]);
    expect(kernel.views().map(view => view.spec.kind)).toEqual(['map']);
    expect(output.images?.[0].png).toBe(kernel.views()[0].png.toString('base64'));
    // Only its own picture is shared: any other address is not the kernel's to mark.
    const other = await registry.call(
      'vision_list',
      { image: 'photo.png' },
      { signal: new AbortController().signal, host: kernel.host }
    );
    expect(other.status).toBe('failed');
    expect(other.text).toContain('no picture-info route');
  });

  it("stores the view's own PNG, encoded once, not a second encode of it", async () => {
    const address = 'array-stored';
    const source = await flatPicture(address, 640, 480, 'jpeg');
    const record: VisionRecord = {
      ...emptyRecord(address),
      marks: [{ id: 1, kind: 'point', x: 100, y: 80, r: 6, caption: 'a', colour: 'red' }],
      lastId: 1
    };
    const [stored] = await renderStored(source, record, [{ kind: 'map' }]);
    const view = await renderView(source, { kind: 'map' }, record);
    expect(stored.png.equals(view.bytes)).toBe(true);
  });

  it('raises the tool error with its code and message', async () => {
    const picture = await sendPicture();
    const call = runKernelOp(
      {
        op: 'vision',
        picture,
        name: 'vision_mark',
        args: { marks: [{ at: '900,10' }] },
        record: emptyRecord(picture.address)
      },
      Buffer.alloc(0)
    );
    const error = (await call.catch((caught: unknown) => caught)) as KernelOpError;
    expect(error).toBeInstanceOf(KernelOpError);
    expect(error.type).toBe('vision');
    expect(error.code).toBe('out-of-bounds');
    expect(error.message).toContain('400×300');
  });

  it("runs Figure through present_svg's handler: a refused SVG raises the tool's kind and message", async () => {
    const bad =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>';
    const refused = (await runKernelOp({ op: 'figure', svg: bad, alt: 'x' }, Buffer.alloc(0)).catch(
      (caught: unknown) => caught
    )) as KernelOpError;
    expect(refused).toBeInstanceOf(KernelOpError);
    expect(refused.type).toBe('svg');
    const check = checkSvg(bad);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(refused.code).toBe(check.error.kind);
      expect(refused.message).toBe(check.error.message);
    }
    const good =
      '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20"><rect width="50" height="10" fill="teal"/></svg>';
    const answer = await runKernelOp({ op: 'figure', svg: good, alt: 'A bar' }, Buffer.alloc(0));
    expect(answer.json).toMatchObject({ width: 60, height: 20 });
    expect(answer.payload?.subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
  });
});

describe('the picture op given raw pixels', () => {
  it('writes them as a filtered PNG of the same pixels, well under their raw size', async () => {
    const [width, height] = [640, 480];
    const pixels = photoPixels(width, height, 40);
    const answer = await runKernelOp(
      { op: 'picture', address: 'array-raw', raw: { width, height, channels: 3 } },
      pixels
    );
    const png = answer.payload ?? Buffer.alloc(0);
    expect(answer.json.encoded).toBe(true);
    expect(png.length).toBeLessThan(pixels.length * 0.6);
    expect((await sharp(png).raw().toBuffer()).equals(pixels)).toBe(true);
  });
});

describe('the picture op given a path', () => {
  it('reads the file itself: the same picture as its bytes sent over the pipe', async () => {
    const jpeg = await sharp({
      create: { width: 640, height: 480, channels: 3, background: { r: 30, g: 90, b: 160 } }
    })
      .jpeg()
      .toBuffer();
    const folder = mkdtempSync(join(tmpdir(), 'fc-kernel-path-'));
    try {
      const file = join(folder, 'photo.jpg');
      writeFileSync(file, jpeg);
      const byPath = await runKernelOp(
        { op: 'picture', address: 'photo.jpg', path: file },
        Buffer.alloc(0)
      );
      const byBytes = await runKernelOp({ op: 'picture', address: 'photo.jpg' }, jpeg);
      expect(byPath.json).toEqual(byBytes.json);
      expect(byPath.json.sha256).toBe(createHash('sha256').update(jpeg).digest('hex'));
      expect(byPath.json).toMatchObject({ width: 640, height: 480, format: 'jpeg' });
      // Later ops name the picture by hash, so the file's bytes are what the program holds.
      const preview = await runKernelOp(
        { op: 'preview', picture: { address: 'photo.jpg', sha256: byPath.json.sha256 } },
        Buffer.alloc(0)
      );
      expect((await sharp(preview.payload).metadata()).format).toBe('jpeg');

      const missing = await runKernelOp(
        { op: 'picture', address: 'gone.jpg', path: join(folder, 'gone.jpg') },
        Buffer.alloc(0)
      ).catch((caught: unknown) => caught);
      expect(missing).toBeInstanceOf(KernelOpError);
      expect(missing).toMatchObject({ code: 'not-found' });
      expect(String(missing)).toContain('cannot read the picture gone.jpg: ENOENT');

      const both = await runKernelOp(
        { op: 'picture', address: 'photo.jpg', path: file },
        jpeg
      ).catch((caught: unknown) => caught);
      expect(both).toMatchObject({ code: 'bad-request' });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
