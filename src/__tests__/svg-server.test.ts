/**
 * `check-svg` as the figure server answers it (route function and a real socket) and as the
 * `figure-chat check-svg` command.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

import { createFigureServer } from '../server/app';
import type { RouteContext } from '../server/http/http';
import { HttpError } from '../server/http/http';
import { jsonRoutes } from '../server/routes';
import type { CheckSvgIo } from '../server/svg/svg';
import { checkSvgCommand, checkSvgRoute } from '../server/svg/svg';
import { fontDirectory } from '../server/svg/fonts';

const good =
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32"><rect width="9" height="9"/></svg>';
const bad =
  '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><script>x()</script></svg>';
const ctx: RouteContext = {
  root: '/nonexistent',
  hideHidden: true,
  signal: new AbortController().signal
};

describe('checkSvgRoute', () => {
  it('is registered as check-svg', () => {
    expect(jsonRoutes['check-svg']).toBe(checkSvgRoute);
  });

  it('answers ok with the size, or the rejection, both as 200', async () => {
    expect(await checkSvgRoute({ svg: good }, ctx)).toEqual({
      json: { ok: true, width: 64, height: 32, nodes: 2 }
    });
    const refused = await checkSvgRoute({ svg: bad }, ctx);
    expect(refused).toEqual({
      json: {
        ok: false,
        error: {
          kind: 'script',
          message: 'SVG contains <script>; remove scripts — figures must be static'
        }
      }
    });
    expect('status' in refused ? refused.status : undefined).toBeUndefined();
  });

  it('refuses a malformed body with a 400', async () => {
    for (const body of [{}, { svg: 1 }, null, 'svg', []]) {
      await expect(checkSvgRoute(body, ctx)).rejects.toMatchObject({ status: 400 });
      await expect(checkSvgRoute(body, ctx)).rejects.toBeInstanceOf(HttpError);
    }
  });

  describe('over a real socket', () => {
    let server: Server;
    let url: string;

    beforeAll(async () => {
      server = createFigureServer({ root: '/nonexistent', hideHidden: true });
      await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/figure-chat/check-svg`;
    });

    afterAll(async () => {
      await new Promise(resolve => server.close(resolve));
    });

    const post = async (body: string): Promise<[number, unknown]> => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body
      });
      return [response.status, await response.json()];
    };

    it('checks figures', async () => {
      expect(await post(JSON.stringify({ svg: good }))).toEqual([
        200,
        { ok: true, width: 64, height: 32, nodes: 2 }
      ]);
      const [status, json] = await post(JSON.stringify({ svg: bad }));
      expect(status).toBe(200);
      expect(json).toMatchObject({ ok: false, error: { kind: 'script' } });
    });

    it('answers 400 to a body that is not {svg: string}', async () => {
      const [status, json] = await post(JSON.stringify({ svg: 5 }));
      expect(status).toBe(400);
      expect(json).toMatchObject({ error: { code: 'bad-request' } });
    });
  });
});

describe('checkSvgCommand', () => {
  /** An in-memory process: files by path, stdin text, captured output. */
  const run = async (
    argv: string[],
    files: Record<string, string> = {},
    stdin = ''
  ): Promise<{ code: number; out: string; err: string }> => {
    let out = '';
    let err = '';
    const io: CheckSvgIo = {
      readFile: async path => {
        if (!(path in files)) {
          throw new Error(`ENOENT: no such file, open '${path}'`);
        }
        return files[path];
      },
      stdin: async () => stdin,
      stdout: text => {
        out += text;
      },
      stderr: text => {
        err += text;
      }
    };
    return { code: await checkSvgCommand(argv, io), out, err };
  };

  it('exits 0 for a valid file', async () => {
    expect(await run(['fig.svg'], { 'fig.svg': good })).toEqual({
      code: 0,
      out: 'SVG ok: 64×32 px, 2 elements\n',
      err: ''
    });
  });

  it('exits 1 with the message on stderr for a rejected one', async () => {
    expect(await run(['-'], {}, bad)).toEqual({
      code: 1,
      out: '',
      err: 'SVG contains <script>; remove scripts — figures must be static\n'
    });
  });

  it('prints the result as JSON with --json', async () => {
    const valid = await run(['--json', 'fig.svg'], { 'fig.svg': good });
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.out)).toEqual({ ok: true, width: 64, height: 32, nodes: 2 });
    const rejected = await run(['-', '--json'], {}, bad);
    expect(rejected.code).toBe(1);
    expect(JSON.parse(rejected.out)).toMatchObject({ ok: false, error: { kind: 'script' } });
  });

  it('exits 2 on usage errors and unreadable files', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['a.svg', 'b.svg'])).code).toBe(2);
    expect((await run(['--strict', 'a.svg'])).code).toBe(2);
    const missing = await run(['missing.svg']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('cannot read missing.svg');
  });
});

describe('fontDirectory', () => {
  it('is the dejavu package by default and FIGURE_CHAT_FONT_DIR when set', () => {
    expect(fontDirectory({})).toMatch(/dejavu-fonts-ttf[/\\]ttf$/);
    expect(fontDirectory({ FIGURE_CHAT_FONT_DIR: '/opt/fonts' })).toBe('/opt/fonts');
  });
});
