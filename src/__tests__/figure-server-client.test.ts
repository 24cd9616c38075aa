/**
 * Issue 7.7, the browser side: when Jupyter answers for the figure server (its HTML 500 or 599
 * while the figure server restarts), `requestFigureServer` and the model transport say so
 * clearly, and read-only calls are retried once. The figure server is real, on loopback; the
 * browser talks to it through a fetch that answers the first N requests as Jupyter's proxy does
 * while the figure server is down.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { ServerConnection } from '@jupyterlab/services';
import sharp from 'sharp';

import { bytesToBase64, FigureClient } from '../chat/figure-client';
import { FigureServerError, requestFigureServer } from '../chat/figure-server';
import { ModelRequestError, figureServerTransport } from '../chat/model-client';

import { isolateProxyEnv } from './helpers/env';
import { useFigureServer } from './helpers/loopback';

/** What jupyter-server-proxy answers when the process behind it is gone. */
const JUPYTER_500 =
  '<!DOCTYPE HTML>\n<html><head><title>500: Internal Server Error</title></head>' +
  '<body><h1>500 : Internal Server Error</h1><p>BrokenPipeError: [Errno 32] Broken pipe</p></body></html>';

const figure = useFigureServer('figure-chat-client-');

isolateProxyEnv();

/** Settings whose fetch answers the first `down` requests with Jupyter's HTML 500. */
function restarting(down: number, sent: string[]): ServerConnection.ISettings {
  const fetchThroughJupyter = async (input: RequestInfo | URL): Promise<Response> => {
    const request = input as Request;
    sent.push(new URL(request.url).pathname);
    if (sent.length <= down) {
      return new Response(JUPYTER_500, { status: 500, headers: { 'Content-Type': 'text/html' } });
    }
    return fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.method === 'GET' ? undefined : await request.text()
    });
  };
  return ServerConnection.makeSettings({ baseUrl: `${figure.url}/`, fetch: fetchThroughJupyter });
}

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">' +
  '<rect x="10" y="10" width="100" height="60" fill="#4477aa"/></svg>';

describe('requestFigureServer', () => {
  it('retries a read-only call once after an HTML answer, and succeeds', async () => {
    const sent: string[] = [];
    const result = await requestFigureServer<{ ok: boolean }>(
      'check-svg',
      { svg: SVG },
      undefined,
      restarting(1, sent)
    );
    expect(result.ok).toBe(true);
    expect(sent).toEqual(['/figure-chat/check-svg', '/figure-chat/check-svg']);
  });

  it('twice down: a clear "restarting" error, never the HTML', async () => {
    const sent: string[] = [];
    const call = requestFigureServer('version', undefined, undefined, restarting(5, sent));
    const error = (await call.catch((caught: unknown) => caught)) as FigureServerError;
    expect(error).toBeInstanceOf(FigureServerError);
    expect(error.code).toBe('figure-server');
    expect(error.message).toContain('The figure server is restarting…');
    expect(error.message).not.toContain('<');
    expect(sent).toHaveLength(2);
  });

  it('does not repeat a call that is not known to be read-only', async () => {
    const sent: string[] = [];
    const call = requestFigureServer('model-cancel', { id: 'x' }, undefined, restarting(1, sent));
    await expect(call).rejects.toMatchObject({ code: 'figure-server' });
    expect(sent).toHaveLength(1);
  });

  it('a busy server (503) is retried once after its hint, then reported with it', async () => {
    process.env.FIGURE_CHAT_MAX_INFLIGHT_BYTES = '10';
    const sent: string[] = [];
    const started = Date.now();
    const call = requestFigureServer('check-svg', { svg: SVG }, undefined, restarting(0, sent));
    await expect(call).rejects.toMatchObject({ status: 503, code: 'busy', retryAfter: 2 });
    expect(sent).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });
});

describe('the model transport', () => {
  it('an HTML answer from Jupyter becomes a clear "restarting" error', async () => {
    const transport = figureServerTransport(restarting(1, []));
    const reading = (async () => {
      for await (const chunk of transport(
        'http://127.0.0.1:9/v1',
        {},
        new AbortController().signal
      )) {
        expect(chunk).toBe('never');
      }
    })();
    const error = (await reading.catch((caught: unknown) => caught)) as ModelRequestError;
    expect(error).toBeInstanceOf(ModelRequestError);
    expect(error.code).toBe('figure-server');
    expect(error.message).toContain('The figure server is restarting…');
  });
});

describe('FigureClient over requestFigureServer', () => {
  it('reads render as binary (no base64 on the wire) and gives callers base64 PNGs', async () => {
    writeFileSync(
      join(figure.root, 'p.png'),
      await sharp({
        create: { width: 40, height: 30, channels: 3, background: { r: 9, g: 9, b: 9 } }
      })
        .png()
        .toBuffer()
    );
    const types: Array<string | null> = [];
    const timings: Array<string | null> = [];
    const settings = restarting(0, []);
    const watched = ServerConnection.makeSettings({
      baseUrl: settings.baseUrl,
      fetch: async (input: RequestInfo, init?: RequestInit) => {
        const response = await settings.fetch(input, init);
        types.push(response.headers.get('Content-Type'));
        timings.push(response.headers.get('Server-Timing'));
        return response;
      }
    });
    const client = new FigureClient((route, body, signal) =>
      requestFigureServer(route, body, signal, watched)
    );
    const record = {
      image: 'p.png',
      marks: [{ id: 1, kind: 'point', x: 5, y: 5, r: 3, caption: 'a', colour: 'red' }],
      lastId: 1
    };
    const answer = await client.call('render', {
      address: 'p.png',
      view: { kind: 'map' },
      record
    });
    expect(types).toEqual(['application/octet-stream']);
    // Where the figure server's time went, for the page's Resource Timing (the reopen benchmark).
    expect(timings[0]).toMatch(/^picture;dur=\d+\.\d, views;dur=\d+\.\d$/);
    const png = Buffer.from(answer.views[0].png, 'base64');
    expect((await sharp(png).metadata()).format).toBe('png');
    expect(answer.picture).toMatchObject({ address: 'p.png', width: 40, height: 30 });
  });
});

describe('bytesToBase64', () => {
  it('encodes every byte value, and arrays longer than one chunk, as Buffer does', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(bytesToBase64(all)).toBe(Buffer.from(all).toString('base64'));
    const long = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 7919) & 255);
    expect(bytesToBase64(long)).toBe(Buffer.from(long).toString('base64'));
    expect(bytesToBase64(new Uint8Array(0))).toBe('');
  });
});
