/**
 * Replayed views' render requests send a picture's bytes once per version: after that, bytes the
 * browser has checked to be that version are named by sha-256 (`cachedBytes`), for a notebook
 * picture and for a Vision output's picture alike; a figure server that no longer holds them
 * answers 428 and gets them again; bytes that are not the stored version are never named by hash,
 * and the server still reports the changed picture. Against the real figure server (real sharp and
 * resvg over loopback).
 */
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { FigureClient } from '../chat/figure-client';
import { viewGroup, type ViewJob } from '../chat/view-batches';
import { ViewRequests } from '../chat/view-requests';
import { createFigureServer } from '../server/app';
import { type HttpError } from '../server/http/http';
import { loadPicture, pictureCache } from '../server/pictures/pictures';
import type { SharedVisionRecord } from '../tools/host';
import { emptyRecord } from '../tools/vision';
import { closeServer, listenLoopback, postRoute, type RouteError } from './helpers/loopback';

let root: string;
let server: Server;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-requests-'));
  server = createFigureServer({ root, hideHidden: true });
  base = await listenLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
  rmSync(root, { recursive: true, force: true });
});

/** A picture of its own colour, so each test has versions no other test sent. */
async function picturePng(colour: number): Promise<Buffer> {
  return sharp({
    create: { width: 120, height: 90, channels: 3, background: { r: colour, g: 80, b: 40 } }
  })
    .png()
    .toBuffer();
}

function sha(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The real figure server over loopback, recording each request body and answer status. */
function recording(): {
  client: FigureClient;
  sent: Array<{ body: Record<string, unknown>; status: number }>;
} {
  const sent: Array<{ body: Record<string, unknown>; status: number }> = [];
  const client = new FigureClient(<T>(route: string, body: unknown, signal: AbortSignal) =>
    postRoute<T>(base, route, body, signal, status =>
      sent.push({ body: body as Record<string, unknown>, status })
    )
  );
  return { client, sent };
}

function job(address: string, sha256: string, at: string): ViewJob {
  const plan = {
    record: emptyRecord(address),
    text: '',
    views: [{ kind: 'closeup' as const, at }]
  };
  const picture = { address, sha256, width: 120, height: 90 };
  return { callId: `c-${at}`, plan, picture, group: viewGroup(plan, picture) };
}

/** A Vision output's picture, whose bytes its kernel gives (counted). */
function sharedPicture(
  address: string,
  sha256: string,
  bytes: () => Buffer
): SharedVisionRecord & { asks: number } {
  const shared = {
    asks: 0,
    picture: { address, sha256, width: 120, height: 90 },
    where: 'widget' as const,
    record: () => emptyRecord(address),
    pictureData(): Promise<string> {
      shared.asks += 1;
      return Promise.resolve(bytes().toString('base64'));
    }
  };
  return shared;
}

const signal = new AbortController().signal;
const kinds = (sent: Array<{ body: Record<string, unknown>; status: number }>): string[] =>
  sent.map(
    ({ body, status }) => `${body.cachedBytes ? 'hash' : body.data ? 'bytes' : 'none'} ${status}`
  );

describe('ViewRequests', () => {
  it('sends a Vision output picture once, then names it by hash, from any conversation of the page', async () => {
    const png = await picturePng(10);
    const address = 'array-0123456789ab';
    const shared = sharedPicture(address, sha(png), () => png);
    const { client, sent } = recording();
    const requests = new ViewRequests(client);
    const first = await requests.render(
      job(address, sha(png), '20,20'),
      [{ kind: 'closeup', at: '20,20' }],
      { address },
      shared,
      signal
    );
    const again = await requests.render(
      job(address, sha(png), '20,20'),
      [{ kind: 'closeup', at: '20,20' }],
      { address },
      shared,
      signal
    );
    // Another conversation of the same page: the server holds the bytes already.
    await new ViewRequests(client).render(
      job(address, sha(png), '60,40'),
      [{ kind: 'closeup', at: '60,40' }],
      { address },
      shared,
      signal
    );
    expect(kinds(sent)).toEqual(['bytes 200', 'hash 200', 'hash 200']);
    expect(sent[1].body.data).toBeUndefined();
    // The same pixels whether the bytes came along or were named.
    expect(again.views[0].png).toBe(first.views[0].png);
    expect(again.picture.sha256).toBe(sha(png));
    // The kernel is still asked each time: it says what the picture is now.
    expect(shared.asks).toBe(3);
  });

  it('sends the bytes again when the figure server no longer holds them (428)', async () => {
    const png = await picturePng(30);
    const address = 'cell:plot/0';
    const { client, sent } = recording();
    const requests = new ViewRequests(client);
    const data = png.toString('base64');
    await requests.render(
      job(address, sha(png), '10,10'),
      [{ kind: 'closeup', at: '10,10' }],
      { address, data },
      null,
      signal
    );
    // As after a restart of the figure server.
    pictureCache.clear();
    const answer = await requests.render(
      job(address, sha(png), '30,30'),
      [{ kind: 'closeup', at: '30,30' }],
      { address, data },
      null,
      signal
    );
    expect(kinds(sent)).toEqual(['bytes 200', 'hash 428', 'bytes 200']);
    expect(answer.views).toHaveLength(1);
  });

  it('never names by hash bytes that are not the version the call saw: the server reports the change', async () => {
    const before = await picturePng(50);
    const after = await picturePng(51);
    const address = 'array-aaaaaaaaaaaa';
    let now = before;
    const shared = sharedPicture(address, sha(before), () => now);
    const { client, sent } = recording();
    const requests = new ViewRequests(client);
    await requests.render(
      job(address, sha(before), '5,5'),
      [{ kind: 'closeup', at: '5,5' }],
      { address },
      shared,
      signal
    );
    now = after;
    const error = await requests
      .render(
        job(address, sha(before), '9,9'),
        [{ kind: 'closeup', at: '9,9' }],
        { address },
        shared,
        signal
      )
      .then(
        () => null,
        (failure: unknown) => failure as RouteError
      );
    expect(error?.status).toBe(409);
    expect(kinds(sent)).toEqual(['bytes 200', 'bytes 409']);
  });
});

describe('loadPicture with cachedBytes', () => {
  it('draws from the bytes held under the hash, never from a workspace file of that name', async () => {
    const held = await picturePng(70);
    const file = await picturePng(71);
    writeFileSync(join(root, 'same.png'), file);
    const ctx = { root, hideHidden: true };
    const missing = await loadPicture(
      { address: 'same.png', expectSha256: sha(held), cachedBytes: true },
      ctx
    ).catch((error: unknown) => error as HttpError);
    expect((missing as HttpError).status).toBe(428);
    await loadPicture({ address: 'cell:x/0', data: held.toString('base64') }, ctx);
    const named = await loadPicture(
      { address: 'same.png', expectSha256: sha(held), cachedBytes: true },
      ctx
    );
    expect(named.bytes.equals(held)).toBe(true);
    const both = await loadPicture(
      {
        address: 'same.png',
        expectSha256: sha(held),
        cachedBytes: true,
        data: held.toString('base64')
      },
      ctx
    ).catch((error: unknown) => error as HttpError);
    expect((both as HttpError).status).toBe(400);
  });
});
