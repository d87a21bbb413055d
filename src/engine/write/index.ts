// The output formats other than the JSON response, each written from the geometry model. The
// writers are loaded on first use: pdfkit alone takes about half a second to load, which every
// worker would otherwise spend at each start, whether or not anyone asks for a PDF. The first
// file of a format in a worker pays it once.

import type { VectorImage } from '../geometry.ts';

export const FILE_FORMATS = ['svg', 'pdf', 'eps', 'dxf', 'png'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

/** The file of one format; `svg` is the document the SVG writer made from the same model. */
export async function writeFile(format: FileFormat, image: VectorImage, svg: string, decimals: number): Promise<Buffer> {
  switch (format) {
    case 'svg':
      return Buffer.from(svg, 'utf8');
    case 'pdf':
      return (await import('./pdf.ts')).writePdf(image, decimals);
    case 'eps':
      return (await import('./eps.ts')).writeEps(image, decimals);
    case 'dxf':
      return Buffer.from((await import('./dxf.ts')).writeDxf(image, decimals), 'utf8');
    case 'png':
      return (await import('./png.ts')).writePng(svg);
  }
}
