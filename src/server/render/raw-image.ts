/**
 * Decoded pixels as the renderer passes them between its stages: decode produces them, enlarge
 * and the canvas consume them. Its own module so that neither stage imports the other for it.
 */
export interface RawImage {
  readonly data: Buffer;
  readonly raw: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
}
