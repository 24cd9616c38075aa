/**
 * `POST render`: views of a vision record over a picture, as the wire module defines the request
 * and the answer. The drawing itself is `renderView` in `render.ts`.
 */
import { validateRecord, VisionError, type VisionRecord } from '../../tools/vision';
import {
  BINARY_CONTENT_TYPE,
  encodeRenderAnswer,
  MODEL_IMAGE_MIMES,
  RenderRequest,
  type ModelImageMime,
  type RenderAnswer
} from '../../tools/wire';
import { HttpError, type JsonRoute } from '../http/http';
import { badBody, loadPicture, pictureInfo } from '../pictures/pictures';
import { renderView, type RenderedView } from './render';

/** The media type of a view rendered in the `model` format, as the wire names it. */
function modelMime(view: RenderedView): ModelImageMime {
  const mime = MODEL_IMAGE_MIMES.find(known => known === view.mime);
  if (!mime) {
    throw new Error(`a model copy came out as ${view.mime}`);
  }
  return mime;
}

/**
 * `POST render { address, data?, expectSha256?, view | views, record, answer?, model?, visible?,
 * width? }` → `{ views: [{ png (base64), width, height, caption, model?, shrunkFrom? }], picture }`,
 * or with `answer: "binary"` the same as `encodeRenderAnswer`'s bytes (what the browser asks for:
 * no base64 on the wire). `model: true` adds each view's compact copy for a vision request; `visible: true`
 * (views in the chat's visible area) draws them before renders already queued for others;
 * `width` draws views wider than that at that width, for display (model copies stay full size).
 */
export const renderRoute: JsonRoute = async (body, ctx) => {
  const parsed = RenderRequest.safeParse(body);
  if (!parsed.success) {
    throw badBody('render', parsed.error);
  }
  const request = parsed.data;
  const started = performance.now();
  const picture = await loadPicture(request, ctx);
  const loaded = performance.now();
  let record: VisionRecord;
  try {
    record = validateRecord(request.record, picture);
  } catch (error) {
    throw error instanceof VisionError ? new HttpError(400, error.message, error.code) : error;
  }
  if (record.image !== picture.address) {
    throw new HttpError(
      400,
      `render: the record is for ${record.image}, not ${picture.address}.`,
      'bad-request'
    );
  }
  const specs = request.views ?? (request.view ? [request.view] : []);
  const lane = request.visible ? 'visible' : 'background';
  const views = await Promise.all(
    specs.map(async spec => {
      const [view, copy] = await Promise.all([
        renderView(picture, spec, record, { lane, width: request.width }),
        request.model ? renderView(picture, spec, record, { format: 'model', lane }) : undefined
      ]);
      return { ...view, model: copy && { mime: modelMime(copy), bytes: copy.bytes } };
    })
  );
  // Where a request's time went, for the reopen benchmark's Resource Timing.
  const timing = { picture: loaded - started, views: performance.now() - loaded };
  if (request.answer === 'binary') {
    const bytes = encodeRenderAnswer(
      views.map(view => ({ ...view, png: view.bytes })),
      pictureInfo(picture)
    );
    return {
      bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
      contentType: BINARY_CONTENT_TYPE,
      timing
    };
  }
  const answer: RenderAnswer = {
    views: views.map(view => ({
      png: view.bytes.toString('base64'),
      width: view.width,
      height: view.height,
      caption: view.caption,
      ...(view.shrunkFrom ? { shrunkFrom: view.shrunkFrom } : {}),
      ...(view.model
        ? { model: { mime: view.model.mime, data: view.model.bytes.toString('base64') } }
        : {})
    })),
    picture: pictureInfo(picture)
  };
  return { json: answer, timing };
};
