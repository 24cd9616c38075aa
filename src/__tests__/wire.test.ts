/**
 * The wire module on both ends, against the real figure server over loopback: every JSON route's
 * answer parses with its schema, requests the schemas refuse are refused by the server too, and the
 * one client turns an answer of the wrong shape into a FigureServerError that says what to do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { FigureClient, type FigureServerRequest } from '../chat/figure-client';
import { FigureServerError } from '../chat/figure-server';
import { createFigureServer } from '../server/app';
import {
  CheckSvgAnswer,
  decodeRenderAnswer,
  encodeRenderAnswer,
  ErrorAnswer,
  PictureInfo,
  RenderAnswer,
  RenderRequest,
  VersionAnswer,
  WireFormatError
} from '../tools/wire';
import { figureSvg } from './helpers/transcripts';
import { closeServer, listenLoopback } from './helpers/loopback';

let root: string;
let server: Server;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-wire-'));
  writeFileSync(
    join(root, 'p.png'),
    await sharp({
      create: { width: 64, height: 48, channels: 3, background: { r: 1, g: 2, b: 3 } }
    })
      .png()
      .toBuffer()
  );
  server = createFigureServer({ root, hideHidden: true });
  base = await listenLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
  rmSync(root, { recursive: true, force: true });
});

async function post(route: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${base}/figure-chat/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  });
  return { status: response.status, json: await response.json() };
}

/** POST and keep the raw answer: its status, content type and bytes. */
async function postRaw(
  route: string,
  body: unknown
): Promise<{ status: number; type: string | null; bytes: Uint8Array }> {
  const response = await fetch(`${base}/figure-chat/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body)
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, type: response.headers.get('Content-Type'), bytes };
}

const record = {
  image: 'p.png',
  marks: [{ id: 1, kind: 'point', x: 10, y: 10, r: 4, caption: 'a', colour: 'red' }],
  lastId: 1
};

describe('the wire module, server end', () => {
  it('describes every JSON answer the server gives', async () => {
    const version = await fetch(`${base}/figure-chat/version`);
    expect(VersionAnswer.safeParse(await version.json()).success).toBe(true);
    const valid = await post('check-svg', { svg: figureSvg('ok') });
    expect(CheckSvgAnswer.parse(valid.json).ok).toBe(true);
    const refused = await post('check-svg', {
      svg: '<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'
    });
    expect(CheckSvgAnswer.parse(refused.json).ok).toBe(false);
    const info = await post('picture-info', { address: 'p.png' });
    expect(PictureInfo.parse(info.json)).toMatchObject({ width: 64, height: 48 });
    const body = { address: 'p.png', views: [{ kind: 'map' }], record };
    expect(RenderRequest.safeParse(body).success).toBe(true);
    const render = await post('render', body);
    expect(render.status).toBe(200);
    expect(RenderAnswer.parse(render.json).views).toHaveLength(1);
  });

  it('refuses what the request schemas refuse, with an error answer naming why', async () => {
    const both = { address: 'p.png', view: { kind: 'map' }, views: [{ kind: 'map' }], record };
    expect(RenderRequest.safeParse(both).success).toBe(false);
    const answer = await post('render', both);
    expect(answer.status).toBe(400);
    expect(ErrorAnswer.parse(answer.json).error.message).toContain('exactly one of');
    const tooMany = { address: 'p.png', views: Array(9).fill({ kind: 'map' }), record };
    expect(RenderRequest.safeParse(tooMany).success).toBe(false);
    expect((await post('render', tooMany)).status).toBe(400);
  });
});

describe('the binary render answer', () => {
  const body = { address: 'p.png', views: [{ kind: 'map' }, { kind: 'map' }], record };

  it('carries the same views as the JSON answer, as PNG bytes, not base64', async () => {
    const json = await postRaw('render', body);
    const binary = await postRaw('render', { ...body, answer: 'binary' });
    expect(binary.status).toBe(200);
    expect(binary.type).toBe('application/octet-stream');
    const decoded = decodeRenderAnswer(binary.bytes);
    const asJson = RenderAnswer.parse(JSON.parse(new TextDecoder().decode(json.bytes)));
    expect(decoded.picture).toEqual(asJson.picture);
    expect(decoded.views).toHaveLength(2);
    decoded.views.forEach((view, i) => {
      const { png, ...rest } = asJson.views[i];
      expect(Buffer.from(view.png).toString('base64')).toBe(png);
      expect({ width: view.width, height: view.height, caption: view.caption }).toEqual(rest);
    });
    // The PNGs travel as themselves (base64 would be 4/3 of them) plus one small header.
    const pngBytes = decoded.views.reduce((sum, view) => sum + view.png.length, 0);
    expect(binary.bytes.length - pngBytes).toBeLessThan(1024);
    expect(json.bytes.length).toBeGreaterThan((pngBytes * 4) / 3);
    expect(binary.bytes.length).toBeLessThan(json.bytes.length);
  });

  it('keeps errors as JSON error answers', async () => {
    const refused = await post('render', { ...body, answer: 'binary', address: 'missing.png' });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(ErrorAnswer.parse(refused.json).error.message).toBeTruthy();
  });

  it('refuses cut, padded and foreign bytes with a WireFormatError', async () => {
    const { bytes } = await postRaw('render', { ...body, answer: 'binary' });
    const cut = bytes.subarray(0, bytes.length - 1);
    const padded = new Uint8Array([...bytes, 0]);
    const foreign = new TextEncoder().encode('{"views":[]}');
    for (const wrong of [cut, padded, foreign, new Uint8Array(0)]) {
      expect(() => decodeRenderAnswer(wrong)).toThrow(WireFormatError);
    }
  });

  it("carries each view's model copy after its PNG when asked, the same as in JSON", async () => {
    const json = await post('render', { ...body, model: true });
    const binary = await postRaw('render', { ...body, model: true, answer: 'binary' });
    const asJson = RenderAnswer.parse(json.json);
    const decoded = decodeRenderAnswer(binary.bytes);
    decoded.views.forEach((view, i) => {
      const copy = asJson.views[i].model;
      expect(copy?.mime).toBe('image/jpeg');
      expect(view.model?.mime).toBe('image/jpeg');
      expect(Buffer.from(view.model?.bytes ?? []).toString('base64')).toBe(copy?.data);
      expect(Buffer.from(view.png).toString('base64')).toBe(asJson.views[i].png);
    });
    // The copy has the view's own size (the picture plus its ruler margin).
    const [first] = decoded.views;
    const copy = Buffer.from(first.model?.bytes ?? []);
    expect(await sharp(copy).metadata()).toMatchObject({
      format: 'jpeg',
      width: first.width,
      height: first.height
    });
    expect(first.width).toBeGreaterThan(64);
    // Without `model`, no copy is made or sent.
    const plain = decodeRenderAnswer(
      (await postRaw('render', { ...body, answer: 'binary' })).bytes
    );
    expect(plain.views.every(view => view.model === undefined)).toBe(true);
  });

  it('refuses a model copy that is not what its header says', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1]);
    const picture = PictureInfo.parse({
      address: 'p.png',
      sha256: 'a'.repeat(64),
      width: 2,
      height: 3,
      format: 'png'
    });
    const view = { png, width: 2, height: 3, caption: 'c' };
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 7]);
    const good = [{ ...view, model: { mime: 'image/jpeg' as const, bytes: jpeg } }];
    expect(decodeRenderAnswer(encodeRenderAnswer(good, picture)).views).toEqual(good);
    const bad = [{ ...view, model: { mime: 'image/jpeg' as const, bytes: png } }];
    expect(() => decodeRenderAnswer(encodeRenderAnswer(bad, picture))).toThrow(
      "view 1's model copy is not a whole image/jpeg"
    );
  });

  it('round-trips through encode and decode', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const picture = PictureInfo.parse({
      address: 'p.png',
      sha256: 'a'.repeat(64),
      width: 2,
      height: 3,
      format: 'png'
    });
    const views = [{ png, width: 2, height: 3, caption: 'Map of p.png — ✓' }];
    const decoded = decodeRenderAnswer(encodeRenderAnswer(views, picture));
    expect(decoded).toEqual({ views, picture });
  });
});

describe('the one client', () => {
  /** The HTTP of `requestFigureServer`: JSON answers parsed, binary answers as bytes. */
  function request(routeAs?: string, mangle = (bytes: Uint8Array) => bytes): FigureServerRequest {
    return async <T>(route: string, body: unknown): Promise<T> => {
      const answer = await postRaw(routeAs ?? route, body);
      if (answer.type === 'application/octet-stream') {
        return mangle(answer.bytes) as T;
      }
      const json: unknown = JSON.parse(new TextDecoder().decode(answer.bytes));
      if (answer.status !== 200) {
        const error = ErrorAnswer.parse(json).error;
        throw new FigureServerError(answer.status, error.message, error.code ?? 'error');
      }
      return json as T;
    };
  }

  it('asks render for binary and gives callers base64 PNGs', async () => {
    let asked: unknown;
    const inner = request();
    const spy: FigureServerRequest = async <T>(
      route: string,
      body: unknown,
      signal: AbortSignal
    ) => {
      asked = body;
      return inner<T>(route, body, signal);
    };
    const answer = await new FigureClient(spy).call('render', {
      address: 'p.png',
      views: [{ kind: 'map' }],
      record
    });
    expect(asked).toMatchObject({ answer: 'binary' });
    const png = Buffer.from(answer.views[0].png, 'base64');
    expect((await sharp(png).metadata()).format).toBe('png');
    expect(answer.picture).toMatchObject({ width: 64, height: 48 });
    expect(answer.views[0].model).toBeUndefined();
  });

  it('gives callers the model copies as base64 when asked', async () => {
    const answer = await new FigureClient(request()).call('render', {
      address: 'p.png',
      views: [{ kind: 'map' }],
      record,
      model: true
    });
    const copy = answer.views[0].model;
    expect(copy?.mime).toBe('image/jpeg');
    expect((await sharp(Buffer.from(copy?.data ?? '', 'base64')).metadata()).format).toBe('jpeg');
  });

  it('turns a cut binary answer into a bad-answer FigureServerError', async () => {
    const client = new FigureClient(request(undefined, bytes => bytes.subarray(0, 100)));
    const call = client.call('render', { address: 'p.png', views: [{ kind: 'map' }], record });
    await expect(call).rejects.toMatchObject({
      name: 'FigureServerError',
      code: 'bad-answer',
      message: expect.stringContaining('Reinstall jupyterlab-figure-chat')
    });
  });

  it('returns checked answers', async () => {
    const info = await new FigureClient(request()).call('picture-info', { address: 'p.png' });
    expect(info.format).toBe('png');
  });

  it('turns an answer of another shape into a FigureServerError (another version of the server)', async () => {
    // picture-info's answer where render's is expected: what a mismatched server would send.
    const client = new FigureClient(request('picture-info'));
    const call = client.call('render', { address: 'p.png', views: [{ kind: 'map' }], record });
    await expect(call).rejects.toThrow(FigureServerError);
    await expect(call).rejects.toMatchObject({
      name: 'FigureServerError',
      code: 'bad-answer',
      message: expect.stringContaining('Reinstall jupyterlab-figure-chat')
    });
  });
});
