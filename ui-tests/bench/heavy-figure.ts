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
