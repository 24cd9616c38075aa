/**
 * One view of a conversation drawn again from what the notebook stores (the picture's address and
 * fingerprint, the record and the view spec), for what leaves the chat: Insert into notebook and
 * Export.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { z } from 'zod';

import { FigureClient } from '../chat/figure-client';
import { requestFigureServer } from '../chat/figure-server';
import { pictureRequest } from '../chat/tools/pictures';
import type { ViewSpec, VisionRecord } from '../tools/vision';
import type { RenderedView } from '../tools/wire';

/** What names a stored view. */
export interface StoredViewTarget {
  readonly picture: { readonly address: string; readonly sha256: string };
  readonly spec: ViewSpec;
  readonly record: VisionRecord;
}

/**
 * The view drawn by the figure server, which checks the picture is still the one the call saw;
 * undefined if it drew nothing.
 */
export async function drawStoredView(
  panel: NotebookPanel,
  target: StoredViewTarget,
  client: FigureClient = new FigureClient(requestFigureServer)
): Promise<z.infer<typeof RenderedView> | undefined> {
  const answer = await client.call('render', {
    ...pictureRequest(panel.model, target.picture.address),
    expectSha256: target.picture.sha256,
    views: [target.spec],
    record: target.record
  });
  return answer.views[0];
}
