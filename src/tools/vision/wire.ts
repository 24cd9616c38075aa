/**
 * What the figure server's vision routes answer: one definition for the server that sends it and
 * the chat that reads it.
 */
import type { ToolImage } from '../registry';

/** `POST picture-info`: a picture's fingerprint and format (read from its header). */
export interface PictureInfo {
  readonly address: string;
  readonly sha256: string;
  readonly width: number;
  readonly height: number;
  readonly format: string;
}

/** `POST render`: the views as base64 PNGs, and the picture they were drawn over. */
export interface RenderAnswer {
  readonly views: ToolImage[];
  readonly picture: PictureInfo;
}
