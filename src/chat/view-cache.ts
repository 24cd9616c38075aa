/**
 * Vision views drawn in this browser session, by what determines their pixels: the picture's
 * fingerprint, the record as the call saw it and the view specs. Reopening a notebook (or any
 * conversation showing the same views) then costs no render. Bounded by the bytes it holds, least
 * recently used first out.
 */
import type { ToolImage } from '../tools/registry';

/** Base64 characters of PNG the session keeps (about 48 MB of images). */
export const VIEW_CACHE_BUDGET = 64 * 1024 * 1024;

/** An LRU map of rendered views with a byte budget. */
export class ViewCache {
  private readonly _entries = new Map<string, ReadonlyArray<ToolImage>>();
  private _bytes = 0;

  constructor(private readonly _budget = VIEW_CACHE_BUDGET) {}

  /**
   * The key of a render: fingerprint, record and view specs, as JSON, and the width they were
   * drawn for display at (none: full size).
   */
  static key(sha256: string, record: unknown, views: unknown, width?: number): string {
    return JSON.stringify(width ? [sha256, record, views, width] : [sha256, record, views]);
  }

  /** Characters held now. */
  get bytes(): number {
    return this._bytes;
  }

  has(key: string): boolean {
    return this._entries.has(key);
  }

  get(key: string): ReadonlyArray<ToolImage> | undefined {
    const views = this._entries.get(key);
    if (views) {
      // Most recently used last.
      this._entries.delete(key);
      this._entries.set(key, views);
    }
    return views;
  }

  set(key: string, views: ReadonlyArray<ToolImage>): void {
    const size = sizeOf(views);
    if (size > this._budget) {
      return;
    }
    const old = this._entries.get(key);
    if (old) {
      this._bytes -= sizeOf(old);
      this._entries.delete(key);
    }
    this._entries.set(key, views);
    this._bytes += size;
    for (const [oldest, held] of this._entries) {
      if (this._bytes <= this._budget) {
        break;
      }
      this._entries.delete(oldest);
      this._bytes -= sizeOf(held);
    }
  }
}

function sizeOf(views: ReadonlyArray<ToolImage>): number {
  return views.reduce((sum, view) => sum + view.png.length + view.caption.length, 0);
}

/** The cache shared by every conversation of this page. */
export const sessionViewCache = new ViewCache();

/** The SHA-256 of base64 bytes, or null where the page has no Web Crypto (plain http). */
async function sha256OfBase64(data: string): Promise<string | null> {
  if (typeof crypto === 'undefined' || !crypto.subtle) {
    return null;
  }
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, byte => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Whether a notebook picture's bytes (base64) are still the version with this fingerprint, checked
 * before views drawn earlier in this session are shown for it: a changed picture is then reported
 * by the figure server as before instead of showing old views. False when that cannot be told (no
 * Web Crypto). Workspace files (no bytes here) are drawn by the server, which checks them.
 */
export async function pictureMatches(data: string, sha256: string): Promise<boolean> {
  try {
    return (await sha256OfBase64(data)) === sha256;
  } catch {
    return false;
  }
}
