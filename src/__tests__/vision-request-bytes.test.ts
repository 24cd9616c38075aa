/**
 * What a vision request costs the model server: the chat asks the real figure server for each
 * view's compact copy, and the request it builds for three map views of a photo carries at most a
 * quarter of the image bytes it carried with the PNGs (which the person still sees).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { Conversation } from '../chat/conversation';
import type { FigureServerRequest } from '../chat/figure-client';
import { buildRequest } from '../chat/request';
import { createChatToolHost } from '../chat/tools/host';
import { renderViews } from '../chat/tools/vision';
import { createFigureServer } from '../server/app';
import type { ToolImage } from '../tools/registry';
import { applyMarkArgs, emptyRecord, PALETTE } from '../tools/vision';
import { closeServer, listenLoopback } from './helpers/loopback';
import { writePhotoJpeg } from './helpers/photo';
import { user } from './helpers/transcripts';

const W = 2400;
const H = 1800;
let root: string;
let server: Server;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-request-bytes-'));
  await writePhotoJpeg(root, 'photo.jpg', W, H, 50);
  server = createFigureServer({ root, hideHidden: true });
  base = await listenLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
  rmSync(root, { recursive: true, force: true });
});

/** The browser's `requestFigureServer` over loopback: binary answers as bytes. */
const asked: unknown[] = [];
const request: FigureServerRequest = async <T>(route: string, body: unknown): Promise<T> => {
  asked.push(body);
  const response = await fetch(`${base}/figure-chat/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  });
  if (response.headers.get('Content-Type') === 'application/octet-stream') {
    return new Uint8Array(await response.arrayBuffer()) as T;
  }
  return (await response.json()) as T;
};

const input = {
  model: 'm',
  contextBudget: 1e9,
  systemPrompt: 'You see pictures.',
  tools: [],
  quirks: {
    imagesRefused: false,
    imagesChecked: true,
    temperatureRefused: false,
    toolsRefused: false
  }
};
const entries = [user('u1', 'Mark the three things')];

/** A request's body with these views, as the chat sends it. */
function body(images?: ReadonlyArray<ToolImage>): string {
  return JSON.stringify(buildRequest(entries, { ...input, images }).body);
}

it("sends the model each view's compact copy: ≤ 1/4 of the PNGs' bytes for three maps", async () => {
  const host = createChatToolHost({
    notebook: () => null,
    conversation: new Conversation(),
    request: (route, body, signal) => request(route, body, signal)
  });
  const marks = Array.from({ length: 12 }, (_, i) => ({
    at: `${150 + i * 180},${200 + (i % 4) * 350}`,
    r: 40,
    colour: PALETTE[i % PALETTE.length]
  }));
  const record = applyMarkArgs(emptyRecord('photo.jpg'), { marks }, { width: W, height: H }).record;
  const info = (await request(
    'picture-info',
    { address: 'photo.jpg' },
    new AbortController().signal
  )) as {
    sha256: string;
  };
  const answer = await renderViews(
    host,
    { address: 'photo.jpg' },
    info.sha256,
    record,
    [{ kind: 'map' }, { kind: 'map' }, { kind: 'map' }],
    new AbortController().signal
  );
  expect(asked[asked.length - 1]).toMatchObject({ model: true, answer: 'binary' });
  const views: ToolImage[] = answer.views;
  expect(views.every(view => view.model?.mime === 'image/jpeg')).toBe(true);
  // Today's request sent the PNGs; the characters the images add are what a local server parses.
  const pngs = views.map(({ png, width, height, caption }) => ({ png, width, height, caption }));
  const today = body(pngs).length - body().length;
  const now = body(views).length - body().length;
  expect(now).toBeLessThanOrEqual(today / 4);
  expect(body(views)).toContain('"url":"data:image/jpeg;base64,/9j/');
  expect(body(views)).not.toContain('data:image/png');
  // People still see the lossless PNG of the same size.
  const png = await sharp(Buffer.from(views[0].png, 'base64')).metadata();
  const copy = await sharp(Buffer.from(views[0].model?.data ?? '', 'base64')).metadata();
  expect(png.format).toBe('png');
  expect([copy.width, copy.height]).toEqual([png.width, png.height]);
}, 60_000);
