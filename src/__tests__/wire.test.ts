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
  ErrorAnswer,
  PictureInfo,
  RenderAnswer,
  RenderRequest,
  VersionAnswer
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

describe('the one client', () => {
  function request(routeAs?: string): FigureServerRequest {
    return async <T>(route: string, body: unknown): Promise<T> => {
      const answer = await post(routeAs ?? route, body);
      if (answer.status !== 200) {
        const error = ErrorAnswer.parse(answer.json).error;
        throw new FigureServerError(answer.status, error.message, error.code ?? 'error');
      }
      return answer.json as T;
    };
  }

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
