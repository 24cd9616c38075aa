/**
 * Figure-server requests fetched off the page's main thread (issue 13, goal 4): the worker's own
 * program, run in a worker thread (./helpers/thread-worker: the `blob:` script the page would
 * start), fetches from the real figure server on loopback. Its answers must be what the page's own
 * fetch gives: JSON, binary render answers, errors with the server's message; an abort stops the
 * request; and a worker that cannot start leaves every request to the page's fetch.
 */
import { performance } from 'node:perf_hooks';

import { join } from 'node:path';

import { ServerConnection } from '@jupyterlab/services';
import sharp from 'sharp';

import { FigureClient } from '../chat/figure-client';
import { FigureServerError, requestFigureServer } from '../chat/figure-server';
import { FetchWorker, REQUEST_MEASURE, fetchOffMainThread } from '../chat/worker-fetch';

import { isolateProxyEnv } from './helpers/env';
import { useFigureServer } from './helpers/loopback';
import { ThreadWorker } from './helpers/thread-worker';

const figure = useFigureServer('figure-chat-worker-fetch-');

isolateProxyEnv();

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">' +
  '<rect x="10" y="10" width="100" height="60" fill="#4477aa"/></svg>';

const workers = ThreadWorker.started;

function settings(): ServerConnection.ISettings {
  return ServerConnection.makeSettings({ baseUrl: `${figure.url}/` });
}

beforeAll(async () => {
  Reflect.set(globalThis, 'Worker', ThreadWorker);
  await sharp({ create: { width: 64, height: 48, channels: 3, background: '#4477aa' } })
    .png()
    .toFile(join(figure.root, 'p.png'));
});

afterAll(() => {
  workers.forEach(worker => worker.terminate());
  Reflect.deleteProperty(globalThis, 'Worker');
});

describe('figure-server requests through the fetch worker', () => {
  it('gives JSON answers, and a measure with the request timing', async () => {
    const before = workers.length;
    const answer = await requestFigureServer<{ ok: boolean }>(
      'check-svg',
      { svg: SVG },
      undefined,
      settings()
    );
    expect(answer.ok).toBe(true);
    // The page's worker ran it (started for this request, which it was posted).
    expect(workers.length).toBe(before + 1);
    expect(workers[before].posted).toEqual([
      expect.objectContaining({
        url: `${figure.url}/figure-chat/check-svg`,
        init: expect.objectContaining({ method: 'POST', body: JSON.stringify({ svg: SVG }) })
      })
    ]);
    const measures = performance.getEntriesByName(REQUEST_MEASURE, 'measure');
    const last = measures[measures.length - 1] as PerformanceMeasure;
    expect(last.detail).toMatchObject({ url: `${figure.url}/figure-chat/check-svg` });
    expect(last.duration).toBeGreaterThan(0);
  });

  it('gives render answers as the same PNG bytes the page fetch gets', async () => {
    const body = {
      address: 'p.png',
      views: [{ kind: 'map' as const }],
      record: {
        image: 'p.png',
        marks: [{ id: 1, kind: 'point' as const, x: 10, y: 10, r: 4, caption: 'a', colour: 'red' }],
        lastId: 1
      }
    };
    const viaWorker = await new FigureClient((route, request, signal) =>
      requestFigureServer(route, request, signal, settings())
    ).call('render', body);
    const direct = await new FigureClient((route, request, signal) =>
      requestFigureServer(
        route,
        request,
        signal,
        // A page whose fetch is its own (not the global one) is never given to the worker.
        ServerConnection.makeSettings({
          baseUrl: `${figure.url}/`,
          fetch: (input, init) => fetch(input, init)
        })
      )
    ).call('render', body);
    expect(viaWorker.views[0].png.length).toBeGreaterThan(100);
    expect(viaWorker).toEqual(direct);
  });

  it('reports the figure server refusing a request with its own message', async () => {
    const error = (await requestFigureServer(
      'render',
      {
        address: 'missing.png',
        views: [{ kind: 'map' }],
        record: { image: 'missing.png', marks: [], lastId: 0 }
      },
      undefined,
      settings()
    ).catch((caught: unknown) => caught)) as FigureServerError;
    expect(error).toBeInstanceOf(FigureServerError);
    expect(error.status).toBe(404);
    expect(error.message).toContain('missing.png');
  });

  it('an abort rejects at once and stops the request in the worker', async () => {
    const controller = new AbortController();
    const call = fetchOffMainThread(
      `${figure.url}/figure-chat/check-svg`,
      {
        method: 'POST',
        body: JSON.stringify({ svg: SVG }),
        headers: { 'Content-Type': 'application/json' },
        signal: controller.signal
      },
      settings()
    );
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    const worker = workers[workers.length - 1];
    expect(worker.posted[worker.posted.length - 1]).toMatchObject({ abort: true });
  });

  it('a worker that cannot start leaves its requests to the page fetch', async () => {
    class RefusedWorker extends ThreadWorker {
      constructor(url: string | URL) {
        super(url);
        // As a content security policy without `blob:` reports it: an error event, no thread.
        this.terminate();
        setTimeout(() => this.onerror?.(new Event('error')), 0);
      }
    }
    Reflect.set(globalThis, 'Worker', RefusedWorker);
    try {
      const fetcher = new FetchWorker();
      const answer = await fetcher.fetch(
        `${figure.url}/figure-chat/check-svg`,
        {
          method: 'POST',
          body: JSON.stringify({ svg: SVG }),
          headers: { 'Content-Type': 'application/json' }
        },
        settings()
      );
      expect(answer.status).toBe(200);
      expect(JSON.parse(await answer.text())).toMatchObject({ ok: true });
      expect(fetcher.running).toBe(false);
    } finally {
      Reflect.set(globalThis, 'Worker', ThreadWorker);
    }
  });
});
