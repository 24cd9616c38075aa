/**
 * `POST render-figure` (issue 32 item 2): the figure server draws a costly figure for the chat,
 * with real resvg in its worker pool, after checking it again with `check-svg`'s policy; hostile
 * figures and sizes past the named limits are refused, never drawn.
 */
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { createFigureServer } from '../server/app';
import { FIGURE_RASTER_MAX_PIXELS } from '../server/svg/raster';
import { closeSvgCheckPool } from '../server/svg/svg';
import { FigureClient, FigureServerError } from '../tools/figure-client';
import { SVG_MAX_BYTES } from '../tools/svg';
import { BINARY_CONTENT_TYPE, RenderFigureAnswer } from '../tools/wire';
import { closeServer, listenLoopback } from './helpers/loopback';

/** A 400×200 figure: a red left half and a blurred blue circle on the right. */
const FILTERED =
  '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200">' +
  '<defs><filter id="b"><feGaussianBlur stdDeviation="4"/></filter></defs>' +
  '<rect width="200" height="200" fill="#ff0000"/>' +
  '<circle cx="300" cy="100" r="60" fill="#0000ff" filter="url(#b)"/></svg>';

let root: string;
let server: Server;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-render-figure-'));
  server = createFigureServer({ root, hideHidden: true });
  base = await listenLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
  await closeSvgCheckPool();
  rmSync(root, { recursive: true, force: true });
});

interface Answer {
  status: number;
  type: string | null;
  bytes: Uint8Array;
  json: unknown;
}

async function post(body: unknown): Promise<Answer> {
  const response = await fetch(`${base}/figure-chat/render-figure`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  });
  const type = response.headers.get('Content-Type');
  const bytes = new Uint8Array(await response.arrayBuffer());
  const json: unknown =
    type === BINARY_CONTENT_TYPE ? null : JSON.parse(new TextDecoder().decode(bytes));
  return { status: response.status, type, bytes, json };
}

describe('render-figure', () => {
  it('draws a checked figure with resvg at the asked width times the pixel ratio', async () => {
    const answer = await post({ svg: FILTERED, width: 200, ratio: 2 });
    expect(answer.status).toBe(200);
    expect(answer.type).toBe(BINARY_CONTENT_TYPE);
    expect(RenderFigureAnswer.safeParse(answer.bytes).success).toBe(true);
    const image = sharp(Buffer.from(answer.bytes));
    expect(await image.metadata()).toMatchObject({ format: 'png', width: 400, height: 200 });
    // Drawn, not blank: red on the left, blue at the circle's centre.
    const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number): number[] =>
      Array.from(data.subarray((y * info.width + x) * info.channels).subarray(0, 3));
    expect(at(50, 100)).toEqual([255, 0, 0]);
    expect(at(300, 100)).toEqual([0, 0, 255]);
  });

  it('never draws larger than the figure itself at the pixel ratio', async () => {
    const answer = await post({ svg: FILTERED, width: 4000, ratio: 1.5 });
    expect(answer.status).toBe(200);
    expect(await sharp(Buffer.from(answer.bytes)).metadata()).toMatchObject({
      width: 600,
      height: 300
    });
  });

  it('keeps a large figure at a high ratio within FIGURE_RASTER_MAX_PIXELS', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000">' +
      '<rect width="4000" height="4000" fill="#0a0"/></svg>';
    const answer = await post({ svg, width: 4000, ratio: 3 });
    expect(answer.status).toBe(200);
    const { width = 0, height = 0 } = await sharp(Buffer.from(answer.bytes)).metadata();
    expect(width * height).toBeLessThanOrEqual(FIGURE_RASTER_MAX_PIXELS);
    expect(width).toBeGreaterThan(2000);
  });

  it.each([
    [
      'a script',
      '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><script>1</script><rect width="9" height="9"/></svg>',
      'script'
    ],
    [
      'a local file',
      '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><image href="file:///etc/passwd" width="9" height="9"/></svg>',
      'image'
    ],
    [
      'an entity',
      '<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>',
      'DOCTYPE'
    ],
    [
      'an oversized source',
      `<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><!--${'x'.repeat(SVG_MAX_BYTES)}--><rect width="9" height="9"/></svg>`,
      'KiB'
    ],
    [
      'an oversized canvas',
      '<svg xmlns="http://www.w3.org/2000/svg" width="5000" height="10"><rect width="9" height="9"/></svg>',
      '4096'
    ],
    [
      'nothing visible',
      '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"></svg>',
      'nothing'
    ]
  ])('refuses %s with the policy’s reason, drawing nothing', async (_, svg, reason) => {
    const answer = await post({ svg, width: 9, ratio: 1 });
    expect(answer.status).toBe(422);
    expect(answer.type).not.toBe(BINARY_CONTENT_TYPE);
    const message = (answer.json as { error: { message: string } }).error.message;
    expect(message).toContain(reason);
  });

  it('refuses 60 shapes filtering the whole canvas at once, not after the draw timeout', async () => {
    // Inside every per-primitive limit, but 60 × 2000² px of filter regions: 11–15 s in resvg.
    const shapes = Array.from(
      { length: 60 },
      (_, i) =>
        `<circle cx="${(i % 10) * 200 + 100}" cy="${Math.floor(i / 10) * 300 + 100}" r="90" filter="url(#f)"/>`
    ).join('');
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000">' +
      '<filter id="f" filterUnits="userSpaceOnUse" x="0" y="0" width="2000" height="2000">' +
      '<feTurbulence baseFrequency="0.02" numOctaves="4"/><feMorphology radius="16"/>' +
      `<feGaussianBlur stdDeviation="16"/></filter>${shapes}</svg>`;
    const started = performance.now();
    const answer = await post({ svg, width: 2000, ratio: 1 });
    expect(answer.status).toBe(422);
    const { error } = answer.json as { error: { message: string; code?: string } };
    expect(error.message).toMatch(/filter regions cover 240\.0 M px .* keep the sum ≤ 16 M px/);
    // Refused by the policy before resvg runs; generous for a loaded machine, far below 10 s.
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it.each([
    ['a width past SVG_MAX_SIDE', { svg: FILTERED, width: 5000, ratio: 1 }, 'width'],
    ['a zero width', { svg: FILTERED, width: 0, ratio: 1 }, 'width'],
    ['a ratio past MAX_FIGURE_PIXEL_RATIO', { svg: FILTERED, width: 100, ratio: 8 }, 'ratio'],
    ['no ratio', { svg: FILTERED, width: 100 }, 'ratio'],
    ['no svg', { width: 100, ratio: 1 }, 'svg']
  ])('refuses a request with %s (400)', async (_, body, field) => {
    const answer = await post(body);
    expect(answer.status).toBe(400);
    expect((answer.json as { error: { message: string } }).error.message).toContain(field);
  });

  it('is called through the figure-server client and its wire schema', async () => {
    const client = new FigureClient(async <T>(route: string, body: unknown) => {
      const response = await fetch(`${base}/figure-chat/${route}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body)
      });
      if (!response.ok) {
        const { error } = (await response.json()) as { error: { message: string; code: string } };
        throw new FigureServerError(response.status, error.message, error.code);
      }
      return new Uint8Array(await response.arrayBuffer()) as T;
    });
    const png = await client.call('render-figure', { svg: FILTERED, width: 100, ratio: 1 });
    expect(await sharp(Buffer.from(png)).metadata()).toMatchObject({ width: 100, height: 50 });
    await expect(
      client.call('render-figure', {
        svg: '<svg xmlns="http://www.w3.org/2000/svg"',
        width: 9,
        ratio: 1
      })
    ).rejects.toMatchObject({ status: 422 });
    // Bytes that are not a PNG are not a figure.
    expect(RenderFigureAnswer.safeParse(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])).success).toBe(
      false
    );
  });
});
