/**
 * `POST render`: views of a vision record over a picture, as the wire module defines the request
 * and the answer. The drawing itself is `renderView` in `render.ts`.
 */
import { validateRecord, VisionError, type VisionRecord } from '../tools/vision';
import {
  BINARY_CONTENT_TYPE,
  encodeRenderAnswer,
  RenderRequest,
  type RenderAnswer
} from '../tools/wire';
import { HttpError, type JsonRoute } from './http';
import { badBody, loadPicture, pictureInfo } from './pictures';
import { renderView } from './render';

/**
 * `POST render { address, data?, expectSha256?, view | views, record, answer? }` →
 * `{ views: [{ png (base64), width, height, caption }], picture }`, or with `answer: "binary"` the
 * same as `encodeRenderAnswer`'s bytes (what the browser asks for: no base64 on the wire).
 */
export const renderRoute: JsonRoute = async (body, ctx) => {
  const parsed = RenderRequest.safeParse(body);
  if (!parsed.success) {
    throw badBody('render', parsed.error);
  }
  const request = parsed.data;
  const picture = await loadPicture(request, ctx);
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
  const views = await Promise.all(specs.map(spec => renderView(picture, spec, record)));
  if (request.answer === 'binary') {
    const bytes = encodeRenderAnswer(
      views.map(view => ({ ...view, png: view.bytes })),
      pictureInfo(picture)
    );
    return {
      bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
      contentType: BINARY_CONTENT_TYPE
    };
  }
  const answer: RenderAnswer = {
    views: views.map(view => ({
      png: view.bytes.toString('base64'),
      width: view.width,
      height: view.height,
      caption: view.caption
    })),
    picture: pictureInfo(picture)
  };
  return { json: answer };
};
