/** The vision tools' pure core: records, schemas, views as SVG, and the transcript fold. */
export * from './address';
export * from './errors';
export * from './marks';
export * from './classes';
export * from './record';
export * from './schemas';
export * from './geometry';
export * from './shrink-geometry';
export * from './ruler-margin';
export * from './draw';
export * from './rulers';
export { FONT_FAMILY, type Box } from './overlay-svg';
export * from './sheet-parts';
export * from './core';
export * from './fold';
export * from './validate';
// The route answers moved to the one wire module; re-exported for existing importers.
export type { PictureInfo, RenderAnswer } from '../wire';
