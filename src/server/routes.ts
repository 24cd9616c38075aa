/**
 * The figure server's route table: `<base_url>figure-chat/<name>` reaches the route `<name>`.
 * Each feature adds its routes here (one line each) and keeps its logic in its own module.
 */
import type { JsonRoute, RawRoute } from './http/http';
import { modelCancelRoute } from './model/cancel';
import { modelInfoRoute } from './model/info';
import { modelRoute } from './model/proxy';
import { pictureInfoRoute } from './pictures/pictures';
import { renderRoute } from './render/route';
import { renderFigureRoute } from './svg/render-figure';
import { checkSvgRoute } from './svg/svg';

/** JSON routes, all `POST` (`version`, a `GET`, is answered by the server itself). */
export const jsonRoutes: Record<string, JsonRoute> = {
  'check-svg': checkSvgRoute,
  'model-cancel': modelCancelRoute,
  'model-info': modelInfoRoute,
  'picture-info': pictureInfoRoute,
  render: renderRoute,
  'render-figure': renderFigureRoute
};

/** Routes that stream or otherwise handle the response themselves. */
export const rawRoutes: Record<string, RawRoute> = {
  model: modelRoute
};
