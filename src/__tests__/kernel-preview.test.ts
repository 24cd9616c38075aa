/**
 * The widget's previews from the kernel program (`preview` op): the picture drawn the way it is
 * shown (EXIF orientation applied, as the views and the marks' coordinates are), at the size
 * asked, and the quick first-paint preview the `picture` op starts ahead of the request.
 */
import sharp from 'sharp';

import { runKernelOp } from '../server/kernel/ops';

/** The picture as shown: 160×100, white, with a blue square at x 80–100, y 10–30. */
const W = 160;
const H = 100;

/** A JPEG stored turned a quarter (EXIF orientation 6: "rotate 90° clockwise to show"). */
async function turnedJpeg(): Promise<Buffer> {
  // Stored pixel (a, b) shows at (W - 1 - b, a): stored H wide and W high.
  const pixels = Buffer.alloc(W * H * 3, 255);
  for (let b = 0; b < W; b++) {
    for (let a = 0; a < H; a++) {
      const x = W - 1 - b;
      const y = a;
      if (x >= 80 && x < 100 && y >= 10 && y < 30) {
        pixels.set([0, 0, 255], (b * H + a) * 3);
      }
    }
  }
  return sharp(pixels, { raw: { width: H, height: W, channels: 3 } })
    .jpeg({ quality: 95 })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

async function pixelAt(jpeg: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at], data[at + 1], data[at + 2]];
}

describe('the kernel program’s previews', () => {
  it('draws an EXIF-turned JPEG the way it is shown, as the marks are placed', async () => {
    const bytes = await turnedJpeg();
    const picture = await runKernelOp({ op: 'picture', address: 'turned.jpg' }, bytes);
    expect([picture.json.width, picture.json.height]).toEqual([W, H]);
    const ref = { address: 'turned.jpg', sha256: String(picture.json.sha256) };
    const preview = await runKernelOp({ op: 'preview', picture: ref }, Buffer.alloc(0));
    expect([preview.json.width, preview.json.height]).toEqual([W, H]);
    const jpeg = preview.payload ?? Buffer.alloc(0);
    const meta = await sharp(jpeg).metadata();
    expect([meta.width, meta.height]).toEqual([W, H]);
    const [r, g, b] = await pixelAt(jpeg, 90, 20);
    expect(b).toBeGreaterThan(200);
    expect(r + g).toBeLessThan(120);
    const [wr, wg, wb] = await pixelAt(jpeg, 20, 80);
    expect(Math.min(wr, wg, wb)).toBeGreaterThan(200);
  });
});

describe('the quick preview the picture op starts', () => {
  async function photo(width: number, height: number): Promise<Buffer> {
    return sharp({ create: { width, height, channels: 3, background: { r: 90, g: 140, b: 60 } } })
      .jpeg({ quality: 90 })
      .toBuffer();
  }

  it('is started for a picture larger than the full preview, and is the one asked for next', async () => {
    const bytes = await photo(2000, 1500);
    const picture = await runKernelOp(
      { op: 'picture', address: 'photo.jpg', quickPreview: 500 },
      bytes
    );
    expect(picture.json.quickPreview).toBe(true);
    const ref = { address: 'photo.jpg', sha256: String(picture.json.sha256) };
    const quick = await runKernelOp({ op: 'preview', picture: ref, maxSide: 500 }, Buffer.alloc(0));
    expect(quick.json).toEqual({ width: 500, height: 375, mime: 'image/jpeg' });
    const meta = await sharp(quick.payload ?? Buffer.alloc(0)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 500, 375]);
    // The full preview is made on request, at its own size.
    const full = await runKernelOp({ op: 'preview', picture: ref }, Buffer.alloc(0));
    expect(full.json).toEqual({ width: 1600, height: 1200, mime: 'image/jpeg' });
  });

  it('is not started when the widget will not ask for it (a picture within the full preview)', async () => {
    const picture = await runKernelOp(
      { op: 'picture', address: 'small.jpg', quickPreview: 500 },
      await photo(1200, 900)
    );
    expect(picture.json.quickPreview).toBe(false);
    const plain = await runKernelOp(
      { op: 'picture', address: 'plain.jpg' },
      await photo(2000, 1500)
    );
    expect(plain.json.quickPreview).toBe(false);
  });
});
