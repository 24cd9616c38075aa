/**
 * `render` requests for replayed views, sending a picture's bytes only when the figure server may
 * not hold them. The server keeps pictures by sha-256; once this page has sent a version's bytes,
 * a later request whose bytes the browser has checked to be that version names them by hash
 * (`cachedBytes`) instead of uploading them again: for a Vision output's 4000×3000 JPEG that is
 * megabytes through Jupyter's proxy per request. A server that has dropped them (restarted, or
 * its cache moved on) answers 428, and the request goes again with the bytes.
 */
import type { SharedVisionRecord } from '../tools/host';
import type { ViewSpec } from '../tools/vision';
import type { RenderAnswer } from '../tools/wire';
import type { FigureClient } from './figure-client';
import type { PictureRequest } from './tools/pictures';
import type { ViewJob } from './view-batches';
import { pictureMatches } from './view-cache';

/** Picture versions remembered as held by the figure server (its own cache is the authority). */
const HELD_VERSIONS = 64;

/** sha-256s of the pictures this page has sent the figure server, oldest first. */
const heldByServer = new Set<string>();

function remember(sha256: string): void {
  heldByServer.delete(sha256);
  heldByServer.add(sha256);
  for (const oldest of heldByServer) {
    if (heldByServer.size <= HELD_VERSIONS) {
      break;
    }
    heldByServer.delete(oldest);
  }
}

/** Whether a figure-server error is its "send the bytes" answer. */
function needsBytes(error: unknown): boolean {
  return (error as { status?: unknown }).status === 428;
}

/** The render requests of one conversation's replayed views. */
export class ViewRequests {
  /** Bytes already checked per address, and the sha-256 they have. */
  private readonly _checked = new Map<string, { data: string; sha256: string }>();

  constructor(private readonly _client: FigureClient) {}

  /**
   * Draw `views` of the job's record over its picture: a notebook picture's bytes come from
   * `request`, a Vision output's from its kernel (asked each time: it is the authority on what
   * the picture is now); the figure server checks them against the fingerprint the call stored.
   * `visible`: a person is looking at them; the figure server draws them before views it has
   * queued for off-screen cards. `width`: views wider than that are drawn at that width (for
   * display; see `RenderRequest.width`).
   */
  async render(
    job: ViewJob,
    views: readonly ViewSpec[],
    request: PictureRequest,
    shared: SharedVisionRecord | null,
    signal: AbortSignal,
    visible = false,
    width?: number
  ): Promise<RenderAnswer> {
    const { address, sha256 } = job.picture;
    const data = shared ? await shared.pictureData(signal) : request.data;
    const body = {
      expectSha256: sha256,
      views: [...views],
      record: job.plan.record,
      ...(visible ? { visible } : {}),
      ...(width ? { width } : {})
    };
    if (
      data !== undefined &&
      heldByServer.has(sha256) &&
      (await this._holds(address, data, sha256))
    ) {
      try {
        return await this._client.call('render', { address, cachedBytes: true, ...body }, signal);
      } catch (error) {
        if (!needsBytes(error)) {
          throw error;
        }
        heldByServer.delete(sha256);
      }
    }
    const answer = await this._client.call(
      'render',
      { address, ...(data === undefined ? {} : { data }), ...body },
      signal
    );
    if (data !== undefined) {
      // The server hashed these bytes: they are the version it now holds.
      this._checked.set(address, { data, sha256: answer.picture.sha256 });
      remember(answer.picture.sha256);
    }
    return answer;
  }

  /** Whether `data` are the bytes with `sha256` (checked once per bytes and address). */
  private async _holds(address: string, data: string, sha256: string): Promise<boolean> {
    const checked = this._checked.get(address);
    if (checked?.data === data) {
      return checked.sha256 === sha256;
    }
    if (!(await pictureMatches(data, sha256))) {
      return false;
    }
    this._checked.set(address, { data, sha256 });
    return true;
  }
}
