/**
 * Pictures for the vision tools, from the browser's side: `cell:<id>/<n>` image outputs travel as
 * bytes from the notebook model; workspace paths are read by the figure server.
 */
import type { INotebookModel } from '@jupyterlab/notebook';

import { isRecord } from '../../tools/guards';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** A `cell:` address that names no image output. */
export class PictureNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PictureNotFoundError';
  }
}

/** What the figure server needs to find a picture: its address, and bytes for `cell:` ones. */
export interface PictureRequest {
  readonly address: string;
  readonly data?: string;
}

/**
 * The base64 bytes of a `cell:<id>/<n>` image output, or a clear error naming what is missing.
 */
export function cellPictureData(model: INotebookModel, address: string): string {
  const match = /^cell:([^/]+)\/(\d+)$/.exec(address);
  if (!match) {
    throw new PictureNotFoundError(
      `${address} is not a cell picture address (cell:<cell-id>/<output-index>).`
    );
  }
  const [, cellId, indexText] = match;
  for (let i = 0; i < model.cells.length; i++) {
    // Read as JSON of unknown shape: outputs come from kernels and from whoever wrote the file.
    const cell: unknown = model.cells.get(i).toJSON();
    if (!isRecord(cell) || cell.id !== cellId) {
      continue;
    }
    const outputs: unknown[] = Array.isArray(cell.outputs) ? cell.outputs : [];
    const output = outputs[Number(indexText)];
    const data = isRecord(output) && isRecord(output.data) ? output.data : {};
    const mime = IMAGE_TYPES.find(
      type => typeof data[type] === 'string' || Array.isArray(data[type])
    );
    if (!mime) {
      throw new PictureNotFoundError(
        `Cell ${cellId} has no image output at index ${indexText}; notebook_read lists the image outputs and their addresses.`
      );
    }
    const value = data[mime];
    return (Array.isArray(value) ? value.join('') : String(value)).replace(/\s+/g, '');
  }
  throw new PictureNotFoundError(
    `No cell with id ${cellId} in this notebook; notebook_read lists the cells and their image outputs.`
  );
}

/** The request for a picture: `cell:` bytes from the notebook, paths left to the server. */
export function pictureRequest(model: INotebookModel | null, address: string): PictureRequest {
  if (!address.startsWith('cell:')) {
    return { address };
  }
  if (!model) {
    throw new PictureNotFoundError('The notebook is closed, so its cell pictures cannot be read.');
  }
  return { address, data: cellPictureData(model, address) };
}
