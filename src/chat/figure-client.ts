/**
 * The figure-server client, for the chat's modules. It lives in `src/tools` so that the tools
 * using it run in any host (the chat, the kernel program); see `../tools/figure-client`.
 */
export {
  bytesToBase64,
  FigureClient,
  FigureServerError,
  type FigureServerRequest
} from '../tools/figure-client';
