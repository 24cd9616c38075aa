/**
 * The heaviest figure the SVG policy lets through (issue 32 item 2): 32 filter primitives, a
 * 2000×2000 canvas, feTurbulence numOctaves 4, feMorphology radius 16, feConvolveMatrix order 5,
 * feGaussianBlur 16, 60 filtered shapes. Used by bench/figure-repaint.spec.ts and
 * tests/rough-edges.spec.ts.
 */
export function heavyFigure(): string {
  // 8 filters × 4 primitives = 32 primitives.
  const filters = Array.from(
    { length: 8 },
    (_, i) =>
      `<filter id="f${i}">` +
      `<feTurbulence type="fractalNoise" baseFrequency="0.0${i + 2}" numOctaves="4" seed="${i}" result="n"/>` +
      '<feMorphology in="SourceGraphic" operator="dilate" radius="16" result="m"/>' +
      '<feConvolveMatrix in="m" order="5" kernelMatrix="1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1" result="c"/>' +
      '<feGaussianBlur in="c" stdDeviation="16"/>' +
      '</filter>'
  ).join('');
  const shapes = Array.from({ length: 60 }, (_, i) => {
    const x = 100 + (i % 10) * 180;
    const y = 100 + Math.floor(i / 10) * 300;
    return `<circle cx="${x}" cy="${y}" r="140" fill="hsl(${i * 6} 70% 50%)" filter="url(#f${i % 8})"/>`;
  }).join('');
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000" viewBox="0 0 2000 2000">' +
    `<defs>${filters}</defs>${shapes}</svg>`
  );
}

/**
 * A figure inside every per-primitive filter limit whose 60 shapes each filter the whole
 * 2000×2000 canvas: 240 M px of filter regions, 11–15 s of rasterising. The summed filter-region
 * limit (16 M px) refuses it; used by tests/rough-edges.spec.ts for the replay of a stored one.
 */
export function fullCanvasFilters(): string {
  const shapes = Array.from(
    { length: 60 },
    (_, i) =>
      `<circle cx="${(i % 10) * 200 + 100}" cy="${Math.floor(i / 10) * 300 + 100}" r="90" filter="url(#f)"/>`
  ).join('');
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000">' +
    '<filter id="f" filterUnits="userSpaceOnUse" x="0" y="0" width="2000" height="2000">' +
    '<feTurbulence baseFrequency="0.02" numOctaves="4"/><feMorphology radius="16"/>' +
    `<feGaussianBlur stdDeviation="16"/></filter>${shapes}</svg>`
  );
}
