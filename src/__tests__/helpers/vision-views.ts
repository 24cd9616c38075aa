/**
 * The VisionViews tests' fixture: one real figure server over loopback (real sharp and resvg) with
 * a 200×150 PNG in its root, and transcripts of vision calls on that picture. A test file calls
 * {@link useFigureServer} once at its top level; jest gives each file its own copy of this module.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { Conversation } from '../../chat/conversation';
import type { VisionViews, VisionViewsOptions } from '../../chat/vision-views';
import { createFigureServer } from '../../server/app';
import type { StoredMessage, ToolMessage } from '../../tools/transcript';
import { closeServer, listenLoopback, postRoute } from './loopback';
import { assistant, call, result, user } from './transcripts';

let root: string;
let server: Server;
let base: string;
let picture: { address: string; sha256: string; width: number; height: number };

/** The served picture (once {@link useFigureServer}'s set-up has run). */
export function servedPicture(): typeof picture {
  return picture;
}

/** Start the figure server before the file's tests, and stop it after them. */
export function useFigureServer(): void {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'fc-views-'));
    const png = await sharp({
      create: { width: 200, height: 150, channels: 3, background: { r: 90, g: 140, b: 200 } }
    })
      .png()
      .toBuffer();
    writeFileSync(join(root, 'p.png'), png);
    picture = {
      address: 'p.png',
      sha256: createHash('sha256').update(png).digest('hex'),
      width: 200,
      height: 150
    };
    server = createFigureServer({ root, hideHidden: true });
    base = await listenLoopback(server);
  });

  afterAll(async () => {
    await closeServer(server);
    rmSync(root, { recursive: true, force: true });
  });
}

/** POST to the real figure server, recording every request's signal. */
export function client(signals: AbortSignal[] = []): VisionViewsOptions {
  return {
    notebook: () => null,
    request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T> {
      signals.push(signal);
      return postRoute<T>(base, route, body, signal);
    }
  };
}

export function visionResult(id: string, callId: string): ToolMessage {
  return { ...result(id, callId, 'ok'), picture };
}

export function transcript(): StoredMessage[] {
  return [
    user('u1', 'mark it'),
    assistant('a1', '', [
      call('c1', 'vision_mark', { image: 'p.png', marks: [{ at: '20,20,80,60', colour: 'red' }] })
    ]),
    visionResult('r1', 'c1'),
    assistant('a2', '', [call('c2', 'vision_list', {})]),
    visionResult('r2', 'c2'),
    assistant('a3', '', [call('c3', 'vision_mark', { marks: [{ at: '5,5' }], view: 'none' })]),
    visionResult('r3', 'c3')
  ];
}

export function loaded(messages: StoredMessage[]): Conversation {
  const conversation = new Conversation();
  conversation.load({ version: 1, messages });
  return conversation;
}

export function settled(views: VisionViews, callId: string): Promise<void> {
  return new Promise(resolve => {
    const check = (): void => {
      const kind = views.state(callId).kind;
      if (kind !== 'rendering' && kind !== 'unknown') {
        views.changed.disconnect(check);
        resolve();
      }
    };
    views.changed.connect(check);
    check();
  });
}

/** The real client, recording each render request's body and the most requests in flight at once. */
export function counting(): {
  options: VisionViewsOptions;
  bodies: Array<{ views: unknown[]; record: unknown }>;
  peak: () => number;
  /** Requests in flight when each request was made. */
  busy: number[];
} {
  const inner = client();
  const bodies: Array<{ views: unknown[]; record: unknown }> = [];
  const busy: number[] = [];
  let inFlight = 0;
  let peak = 0;
  return {
    bodies,
    busy,
    peak: () => peak,
    options: {
      ...inner,
      async request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T> {
        bodies.push(body as { views: unknown[]; record: unknown });
        busy.push(inFlight);
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          return await inner.request<T>(route, body, signal);
        } finally {
          inFlight -= 1;
        }
      }
    }
  };
}

/** A marked picture, then `count` close-ups at distinct points, each its own call. */
export function closeUps(count: number): StoredMessage[] {
  const messages = transcript().slice(0, 3);
  for (let i = 0; i < count; i++) {
    messages.push(
      assistant(`s${i}`, '', [
        call(`show${i}`, 'vision_show', { at: [`${10 + i * 15},${20 + i * 10}`] })
      ]),
      visionResult(`rs${i}`, `show${i}`)
    );
  }
  return messages;
}

export function allSettled(views: VisionViews, callIds: string[]): Promise<unknown> {
  return Promise.all(callIds.map(id => settled(views, id)));
}
