// PNG: the SVG written from the model, rendered by resvg at the original pixel size.

import { Resvg } from '@resvg/resvg-js';

export function writePng(svg: string): Buffer {
  const rendered = new Resvg(svg, { fitTo: { mode: 'original' }, font: { loadSystemFonts: false } }).render();
  return rendered.asPng();
}
