// The output formats other than the JSON response, each written from the geometry model.

import type { VectorImage } from '../geometry.ts';
import { writeDxf } from './dxf.ts';
import { writeEps } from './eps.ts';
import { writePdf } from './pdf.ts';
import { writePng } from './png.ts';

export const FILE_FORMATS = ['svg', 'pdf', 'eps', 'dxf', 'png'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

/** The file of one format; `svg` is the document the SVG writer made from the same model. */
export async function writeFile(format: FileFormat, image: VectorImage, svg: string, decimals: number): Promise<Buffer> {
  switch (format) {
    case 'svg':
      return Buffer.from(svg, 'utf8');
    case 'pdf':
      return writePdf(image, decimals);
    case 'eps':
      return writeEps(image, decimals);
    case 'dxf':
      return Buffer.from(writeDxf(image, decimals), 'utf8');
    case 'png':
      return writePng(svg);
  }
}
