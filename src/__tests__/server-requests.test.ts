/**
 * Issue 7.7 and 7.8 (in-flight bytes): the figure server reads (up to a cap) a body it refuses
 * before answering, so the client is never cut off mid-upload (Jupyter turns that into an HTML
 * 500), and all requests together hold a bounded number of body bytes (503 with a retry hint past
 * it). Through the real figure server on loopback, with Node's HTTP client writing bodies as a
 * proxy does.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';

import { bytesInFlight } from '../server/http/http';

import { isolateProxyEnv } from './helpers/env';
import { useFigureServer } from './helpers/loopback';

const figure = useFigureServer('figure-chat-requests-');

isolateProxyEnv();

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Start a POST whose body the test writes; resolves with the answer or rejects on EPIPE/reset. */
function upload(
  path: string,
  headers: Record<string, string | number>
): { req: ClientRequest; answer: Promise<Answer> } {
  const url = new URL(figure.url);
  const req = request({
    host: url.hostname,
    port: url.port,
    path,
    method: 'POST',
    headers: { Connection: 'close', ...headers }
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', res => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8')
        })
      );
      res.on('error', reject);
    });
  });
  return { req, answer };
}

/** Write `size` bytes in 64 KiB pieces, waiting for the socket as a proxy does. */
async function writeBody(req: ClientRequest, size: number, fill = ' '): Promise<void> {
  const piece = Buffer.alloc(64 * 1024, fill);
  for (let sent = 0; sent < size && !req.destroyed; sent += piece.length) {
    const part = piece.subarray(0, Math.min(piece.length, size - sent));
    if (!req.write(part)) {
      await new Promise<void>(resolve => {
        const done = (): void => {
          req.off('drain', done).off('close', done);
          resolve();
        };
        req.on('drain', done).on('close', done);
      });
    }
  }
}

describe('early refusals', () => {
  it.each([
    ['415, wrong content type', '/figure-chat/check-svg', 'text/plain', 415],
    ['404, unknown route', '/figure-chat/no-such-route', 'application/json', 404],
    ['413, too large', '/figure-chat/check-svg', 'application/json', 413]
  ])(
    '%s: the body is read first, so the answer arrives whole',
    async (_label, path, type, code) => {
      const size = code === 413 ? 65 * 1024 * 1024 : 4 * 1024 * 1024;
      for (let attempt = 0; attempt < (code === 413 ? 1 : 5); attempt++) {
        const { req, answer } = upload(path, { 'Content-Type': type, 'Content-Length': size });
        await writeBody(req, size);
        req.end();
        const { status, body } = await answer;
        expect(status).toBe(code);
        expect(JSON.parse(body)).toHaveProperty('error.message');
      }
    },
    60_000
  );
});

describe('in-flight request bytes', () => {
  it('past the budget: 503 with a retry hint; within it again once the others finish', async () => {
    process.env.FIGURE_CHAT_MAX_INFLIGHT_BYTES = String(3 * 1024 * 1024);
    const json = { 'Content-Type': 'application/json' };
    // A slow upload holds 2 MiB of the budget.
    const size = 2 * 1024 * 1024;
    const slow = upload('/figure-chat/check-svg', { ...json, 'Content-Length': size + 20 });
    slow.req.write('{"svg":"<svg/>","x":"');
    await writeBody(slow.req, size - 64 * 1024);
    while (bytesInFlight() < size - 64 * 1024) {
      await new Promise(resolve => setTimeout(resolve, 10));
    }

    // Declared too large for what is left: refused before a byte is held.
    const declared = upload('/figure-chat/check-svg', { ...json, 'Content-Length': size });
    await writeBody(declared.req, size);
    declared.req.end();
    const busy = await declared.answer;
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('2');
    expect(JSON.parse(busy.body).error).toMatchObject({ code: 'busy', retryAfter: 2 });
    expect(JSON.parse(busy.body).error.message).toContain('try again in 2 s');

    // Not declared (chunked): refused once it outgrows the budget.
    const chunked = upload('/figure-chat/check-svg', json);
    await writeBody(chunked.req, size);
    chunked.req.end();
    expect((await chunked.answer).status).toBe(503);

    // The slow upload finishes; its bytes are given back, and the same request now goes through.
    await writeBody(slow.req, 64 * 1024);
    slow.req.end('"}');
    expect((await slow.answer).status).not.toBe(503);
    expect(bytesInFlight()).toBe(0);
    const again = upload('/figure-chat/check-svg', { ...json, 'Content-Length': 30 });
    again.req.end('{"svg":"<svg/>","x":"aaaaaa"}'.padEnd(30, ' '));
    expect((await again.answer).status).not.toBe(503);
  }, 30_000);
});
