/**
 * Workspace pictures: paths confined to the Jupyter root, and each file opened once and read
 * from its descriptor, so what is checked is what is read.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

import { HttpError } from '../http/http';

/** Largest picture file read, in bytes. */
export const MAX_PICTURE_BYTES = 64 * 1024 * 1024;

/**
 * Workspace file versions already hashed, keyed by what the opened descriptor is (device, inode,
 * size, mtime), never by path: a path can name another file a moment later.
 */
const hashedFiles = new Map<string, string>();
const MAX_HASHED_FILES = 1000;

function isHidden(path: string): boolean {
  return path.split(/[\\/]/).some(segment => segment.startsWith('.') && segment !== '.');
}

/**
 * Resolve a workspace picture path to a real file inside the root. Refuses absolute paths, `..`,
 * symlinks that lead outside the root (both sides through `realpath`), and hidden files or folders
 * when Jupyter hides them.
 */
export async function resolveWorkspacePath(
  root: string,
  path: string,
  hideHidden: boolean
): Promise<string> {
  if (path.length === 0 || path.includes('\0')) {
    throw new HttpError(
      400,
      'Picture path is empty or contains NUL; give a path relative to the Jupyter root.',
      'bad-address'
    );
  }
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.startsWith('\\')) {
    throw new HttpError(
      400,
      `Picture "${path}" is an absolute path; give a path relative to the Jupyter root.`,
      'outside-root'
    );
  }
  if (path.split(/[\\/]/).includes('..')) {
    throw new HttpError(
      400,
      `Picture "${path}" contains "..": pictures must lie inside the Jupyter root.`,
      'outside-root'
    );
  }
  if (hideHidden && isHidden(path)) {
    throw new HttpError(
      403,
      `Picture "${path}" is in a hidden file or folder, which Jupyter hides; move it or show hidden files.`,
      'hidden'
    );
  }
  const realRoot = await realpath(root);
  let real: string;
  try {
    real = await realpath(resolve(realRoot, path));
  } catch {
    throw new HttpError(
      404,
      `No picture at "${path}" under the Jupyter root; check the path (it is relative to the root).`,
      'not-found'
    );
  }
  assertConfined(path, realRoot, real, hideHidden);
  return real;
}

/** Whether `real` (an absolute real path) lies strictly inside `realRoot`. */
function isInside(realRoot: string, real: string): boolean {
  const inside = relative(realRoot, real);
  return !(inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside));
}

/**
 * Where an open descriptor really is: Linux's `/proc/self/fd/N` link. Elsewhere, the path's
 * realpath, accepted only if it is still the very file the descriptor holds (device and inode).
 */
async function descriptorPath(handle: FileHandle, real: string): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    const [held, named] = await Promise.all([handle.stat(), stat(real).catch(() => undefined)]);
    return named && named.dev === held.dev && named.ino === held.ino ? real : undefined;
  }
}

/**
 * Open a workspace picture once and read it from that descriptor. The path is checked first for
 * clear messages (`resolveWorkspacePath`), but the check that counts is made on the descriptor:
 * opened without following a final symlink, and non-blocking (a FIFO must not hang the server),
 * its real path must lie inside the root. A folder swapped for a symlink between the check and
 * the open therefore reads nothing outside the root.
 */
export async function readWorkspaceFile(
  root: string,
  path: string,
  hideHidden: boolean,
  cached: (sha256: string) => boolean
): Promise<{ bytes?: Buffer; sha256?: string }> {
  const real = await resolveWorkspacePath(root, path, hideHidden);
  const realRoot = await realpath(root);
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw new HttpError(
      409,
      `Picture "${path}" changed while it was being opened; retry.`,
      'picture-changed'
    );
  }
  try {
    const held = await descriptorPath(handle, real);
    assertConfined(path, realRoot, held, hideHidden);
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new HttpError(
        400,
        `"${path}" is not a file; give the path of a picture.`,
        'not-a-file'
      );
    }
    if (info.size > MAX_PICTURE_BYTES) {
      throw new HttpError(
        413,
        `Picture "${path}" is ${info.size} bytes; the limit is ${MAX_PICTURE_BYTES}.`,
        'too-large'
      );
    }
    const key = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`;
    const known = hashedFiles.get(key);
    if (known && cached(known)) {
      return { sha256: known };
    }
    const bytes = await handle.readFile();
    if (bytes.length > MAX_PICTURE_BYTES) {
      throw new HttpError(
        413,
        `Picture "${path}" grew past ${MAX_PICTURE_BYTES} bytes while it was read.`,
        'too-large'
      );
    }
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (hashedFiles.size >= MAX_HASHED_FILES) {
      hashedFiles.clear();
    }
    hashedFiles.set(key, digest);
    return { bytes, sha256: digest };
  } finally {
    await handle.close();
  }
}

/**
 * Refuse a resolved location (`undefined`: one that could not be read back) outside the root, or
 * hidden when Jupyter hides such files. The same check for a path and for an opened descriptor.
 */
function assertConfined(
  path: string,
  realRoot: string,
  real: string | undefined,
  hideHidden: boolean
): asserts real is string {
  if (real === undefined || !isInside(realRoot, real)) {
    throw new HttpError(
      403,
      `Picture "${path}" leads outside the Jupyter root (through a symlink); copy the picture into the workspace.`,
      'outside-root'
    );
  }
  if (hideHidden && isHidden(relative(realRoot, real))) {
    throw new HttpError(
      403,
      `Picture "${path}" leads to a hidden file or folder, which Jupyter hides.`,
      'hidden'
    );
  }
}
