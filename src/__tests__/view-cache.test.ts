/**
 * The session cache of vision views: bounded by bytes, least recently used out, and only used
 * while a notebook picture's bytes still match the fingerprint the views were drawn from.
 */
import { createHash } from 'node:crypto';

import { pictureMatches, ViewCache } from '../chat/view-cache';
import type { ToolImage } from '../tools/registry';

function view(chars: number, caption = 'v'): ToolImage {
  return { png: 'A'.repeat(chars), width: 1, height: 1, caption };
}

describe('ViewCache', () => {
  it('keeps within its byte budget, dropping the least recently used first', () => {
    const cache = new ViewCache(1000);
    cache.set('a', [view(399)]);
    cache.set('b', [view(399)]);
    expect(cache.get('a')).toBeDefined(); // a is now the most recently used
    cache.set('c', [view(399)]);
    expect(cache.bytes).toBeLessThanOrEqual(1000);
    expect(cache.has('b')).toBe(false);
    expect(cache.has('a')).toBe(true);
    expect(cache.has('c')).toBe(true);
  });

  it('never holds an entry larger than the budget', () => {
    const cache = new ViewCache(100);
    cache.set('big', [view(200)]);
    expect(cache.has('big')).toBe(false);
    expect(cache.bytes).toBe(0);
  });

  it('keys on fingerprint, record and view specs', () => {
    const record = { marks: [{ at: [1, 2] }] };
    const a = ViewCache.key('f'.repeat(64), record, [{ kind: 'map' }]);
    expect(ViewCache.key('f'.repeat(64), record, [{ kind: 'map' }])).toBe(a);
    expect(ViewCache.key('e'.repeat(64), record, [{ kind: 'map' }])).not.toBe(a);
    expect(ViewCache.key('f'.repeat(64), { marks: [] }, [{ kind: 'map' }])).not.toBe(a);
    expect(ViewCache.key('f'.repeat(64), record, [{ kind: 'sheet' }])).not.toBe(a);
  });
});

describe('pictureMatches', () => {
  const bytes = Buffer.from('picture bytes');
  const data = bytes.toString('base64');
  const sha256 = createHash('sha256').update(bytes).digest('hex');

  it('holds while the picture is the one the views were drawn from', async () => {
    expect(await pictureMatches(data, sha256)).toBe(true);
  });

  it('fails for a changed picture, so the server reports the change', async () => {
    const changed = Buffer.from('other bytes').toString('base64');
    expect(await pictureMatches(changed, sha256)).toBe(false);
  });
});
