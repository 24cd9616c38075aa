/**
 * The pictures a saved notebook's conversation points at, for the programs that read a notebook
 * file (`figure-chat render`, `figure-chat export --assets`): `cell:` pictures from the notebook's
 * own image outputs, anything else from the workspace, each loaded once per fingerprint.
 */
import { parsePictureAddress } from '../../tools/vision';
import { loadPicture, type Picture } from '../pictures/pictures';

/** The parts of a notebook file these programs read. */
export interface NotebookJson {
  metadata?: Record<string, unknown>;
  cells?: Array<{ id?: unknown; outputs?: Array<{ data?: Record<string, unknown> }> }>;
}

/** The base64 of a cell's image output, as nbformat stores it (a string or a list of lines). */
function cellImage(notebook: NotebookJson, cellId: string, index: number): string | undefined {
  const data = notebook.cells?.find(cell => cell.id === cellId)?.outputs?.[index]?.data;
  for (const mime of ['image/png', 'image/jpeg']) {
    const value = data?.[mime];
    if (typeof value === 'string') {
      return value;
    }
    if (Array.isArray(value) && value.every(line => typeof line === 'string')) {
      return value.join('');
    }
  }
  return undefined;
}

/**
 * A loader of the notebook's pictures by (address, sha-256): each is read and checked once, and
 * a picture that is gone or changed rejects with the reason (the caller names the view).
 */
export function notebookPictures(
  notebook: NotebookJson,
  root: string
): (address: string, sha256: string) => Promise<Picture> {
  const pictures = new Map<string, Promise<Picture>>();
  return (address, sha256) => {
    const key = `${address}|${sha256}`;
    let picture = pictures.get(key);
    if (!picture) {
      const parsed = parsePictureAddress(address);
      const data =
        parsed.kind === 'cell' ? cellImage(notebook, parsed.cellId, parsed.output) : undefined;
      picture =
        parsed.kind === 'cell' && data === undefined
          ? Promise.reject(new Error(`the notebook has no image output ${address}`))
          : loadPicture({ address, data, expectSha256: sha256 }, { root, hideHidden: true });
      pictures.set(key, picture);
    }
    return picture;
  };
}
