import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { HttpError } from '../server/http/http';
import {
  loadPicture,
  PictureCache,
  pictureInfoRoute,
  resolveWorkspacePath
} from '../server/pictures/pictures';

let base: string;
let root: string;
let png: Buffer;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'fc-pictures-'));
  root = join(base, 'root');
  mkdirSync(join(root, 'img'), { recursive: true });
  mkdirSync(join(root, '.secret'));
  png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  writeFileSync(join(root, 'img', 'a.png'), png);
  writeFileSync(join(root, '.secret', 'b.png'), png);
  writeFileSync(join(root, 'img', '.c.png'), png);
  writeFileSync(join(base, 'outside.png'), png);
  writeFileSync(join(root, 'img', 'not.png'), 'hello, not a picture');
  symlinkSync(join(base, 'outside.png'), join(root, 'img', 'link-out.png'));
  symlinkSync(join(root, 'img', 'a.png'), join(root, 'img', 'link-in.png'));
  symlinkSync(join(root, '.secret', 'b.png'), join(root, 'img', 'link-hidden.png'));
  symlinkSync(base, join(root, 'up'));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function refusal(run: () => Promise<unknown>): Promise<HttpError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error('expected a refusal');
}

describe('workspace path confinement', () => {
  it('resolves a plain path and a symlink that stays inside', async () => {
    expect(await resolveWorkspacePath(root, 'img/a.png', true)).toMatch(/img\/a\.png$/);
    expect(await resolveWorkspacePath(root, 'img/link-in.png', true)).toMatch(/img\/a\.png$/);
  });

  it.each([
    ['/etc/passwd', 'outside-root', /absolute/],
    ['../outside.png', 'outside-root', /\.\./],
    ['img/../../outside.png', 'outside-root', /\.\./],
    ['img/link-out.png', 'outside-root', /symlink/],
    ['up/outside.png', 'outside-root', /symlink/],
    ['.secret/b.png', 'hidden', /hidden/],
    ['img/.c.png', 'hidden', /hidden/],
    ['img/link-hidden.png', 'hidden', /hidden/],
    ['img/missing.png', 'not-found', /No picture/]
  ])('refuses %s', async (path, code, message) => {
    const error = await refusal(() => resolveWorkspacePath(root, path, true));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('allows hidden paths when Jupyter shows them', async () => {
    expect(await resolveWorkspacePath(root, '.secret/b.png', false)).toMatch(/b\.png$/);
  });
});

describe('loadPicture and picture-info', () => {
  const ctx = (): { root: string; hideHidden: boolean; signal: AbortSignal } => ({
    root,
    hideHidden: true,
    signal: new AbortController().signal
  });

  it('fingerprints a workspace picture from its header', async () => {
    const { json } = (await pictureInfoRoute({ address: 'img/a.png' }, ctx())) as { json: unknown };
    expect(json).toEqual({
      address: 'img/a.png',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      width: 30,
      height: 20,
      format: 'png'
    });
  });

  it('reads cell pictures from base64 data, then from the cache by sha-256', async () => {
    const first = await loadPicture({ address: 'cell:abc/0', data: png.toString('base64') }, ctx());
    expect([first.width, first.height]).toEqual([30, 20]);
    const again = await loadPicture({ address: 'cell:abc/0', expectSha256: first.sha256 }, ctx());
    expect(again.bytes.equals(png)).toBe(true);
    const missing = await refusal(() =>
      loadPicture({ address: 'cell:abc/1', expectSha256: 'f'.repeat(64) }, ctx())
    );
    expect(missing.status).toBe(428);
  });

  it('says the picture changed when the sha-256 differs', async () => {
    const error = await refusal(() =>
      loadPicture({ address: 'img/a.png', expectSha256: '0'.repeat(64) }, ctx())
    );
    expect(error.status).toBe(409);
    expect(error.message).toMatch(/changed since the conversation marked it/);
  });

  it('refuses what is not a picture, bad base64 and bad addresses', async () => {
    expect((await refusal(() => loadPicture({ address: 'img/not.png' }, ctx()))).code).toBe(
      'not-an-image'
    );
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>'
    ).toString('base64');
    expect(
      (await refusal(() => loadPicture({ address: 'cell:x/0', data: svg }, ctx()))).status
    ).toBe(415);
    expect(
      (await refusal(() => loadPicture({ address: 'cell:x/0', data: '!!' }, ctx()))).code
    ).toBe('bad-data');
    expect((await refusal(() => loadPicture({ address: 'cell:x' }, ctx()))).code).toBe(
      'bad-address'
    );
    expect((await refusal(() => pictureInfoRoute({ address: 3 }, ctx()))).status).toBe(400);
  });
});

describe('PictureCache', () => {
  it('evicts least recently used entries by total bytes', () => {
    const cache = new PictureCache(100);
    const entry = (
      n: number
    ): { bytes: Buffer; width: number; height: number; format: string } => ({
      bytes: Buffer.alloc(n),
      width: 1,
      height: 1,
      format: 'png'
    });
    cache.set('a', entry(40));
    cache.set('b', entry(40));
    cache.get('a');
    cache.set('c', entry(40));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.bytes).toBe(80);
    cache.set('huge', entry(101));
    expect(cache.get('huge')).toBeUndefined();
  });
});
