// PNG: the SVG written from the model, rendered by resvg at the original pixel size. With a
// physical `unit`, the PNG also carries `dpi` (its pHYs chunk), so print tools size it as the
// other formats are sized; its pixels are the same.

import { Resvg } from '@resvg/resvg-js';
import sharp from 'sharp';
import type { PhysicalSize } from './page.ts';

export async function writePng(svg: string, width: number, page?: PhysicalSize): Promise<Buffer> {
  // The SVG may state its size in mm or inches: rendered to its width in pixels, whatever it says.
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } }).render();
  const png = rendered.asPng();
  if (!page || page.unit === 'px') return png;
  return sharp(png).withMetadata({ density: page.dpi }).png().toBuffer();
}
