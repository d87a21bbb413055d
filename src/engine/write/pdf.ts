// Writes the geometry model as a one-page vector PDF with pdfkit: the page is the image's
// pixel size at 72 dpi (one pixel, one point), or with a physical `unit` the picture's size at
// `dpi`; shapes filled in paint order with the nonzero rule as in the SVG, centerline strokes
// stroked with round caps and joins, gradients as axial and radial shadings, opacity as a
// graphics state.

import PDFDocument from 'pdfkit';
import { PathCommand, type Rgb, type TracedShape, type VectorImage, withOpacityPerShape } from '../geometry.ts';
import { groupShapesByFill } from './grouping.ts';
import { coordinateRounding, documentGradient, type CoordinateRounding } from './document.ts';
import { pointsPerPixel, type PhysicalSize } from './page.ts';
import { documentStrokeWidth } from './svg.ts';

function rgb({ r, g, b }: Rgb): string {
  const channel = (value: number) => Math.max(0, Math.min(255, Math.round(value))).toString(16).padStart(2, '0');
  return `#${channel(r)}${channel(g)}${channel(b)}`;
}

/** Adds a shape's subpaths to the current path; false when it encloses nothing. */
function tracePath(doc: PDFKit.PDFDocument, shape: TracedShape, round: CoordinateRounding): boolean {
  let drawn = false;
  for (const { commands, coords } of shape.paths) {
    let at = 0;
    for (let index = 0; index < commands.length; index++) {
      const command = commands[index] as number;
      if (command === PathCommand.close) {
        doc.closePath();
        continue;
      }
      if (command === PathCommand.move) {
        const next = commands[index + 1];
        // A subpath without segments encloses nothing; the SVG writer leaves these out too.
        if (next === undefined || next === PathCommand.move || next === PathCommand.close) {
          at += 2;
          if (next === PathCommand.close) index++;
          continue;
        }
        doc.moveTo(round.x(coords[at] as number), round.y(coords[at + 1] as number));
        at += 2;
        continue;
      }
      drawn = true;
      if (command === PathCommand.line) {
        doc.lineTo(round.x(coords[at] as number), round.y(coords[at + 1] as number));
        at += 2;
        continue;
      }
      doc.bezierCurveTo(
        round.x(coords[at] as number),
        round.y(coords[at + 1] as number),
        round.x(coords[at + 2] as number),
        round.y(coords[at + 3] as number),
        round.x(coords[at + 4] as number),
        round.y(coords[at + 5] as number),
      );
      at += 6;
    }
  }
  return drawn;
}

export function writePdf(image: VectorImage, decimals: number, page?: PhysicalSize): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    compress: true,
    info: { Title: 'Vectorized image', Creator: 'vectorize', Producer: 'vectorize (pdfkit)' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  // The drawing stays in pixels, scaled onto a page of the physical size.
  const scale = pointsPerPixel(page);
  doc.addPage({ size: [image.width * scale, image.height * scale], margin: 0 });
  if (scale !== 1) doc.scale(scale);
  const round = coordinateRounding(image, decimals);
  if (image.background) doc.rect(0, 0, image.width, image.height).fill(rgb(image.background));
  // A translucent drawing's opacity is taken per shape (no group opacity here).
  for (const shape of groupShapesByFill(withOpacityPerShape(image).shapes)) {
    doc.save();
    if (!tracePath(doc, shape, round)) {
      doc.restore();
      continue;
    }
    if (shape.stroke && shape.fill.kind === 'flat') {
      doc.lineWidth(documentStrokeWidth(shape.stroke.width, image)).lineCap('round').lineJoin('round').stroke(rgb(shape.fill.color));
      doc.restore();
      continue;
    }
    if (shape.opacity < 0.995) doc.fillOpacity(shape.opacity);
    if (shape.fill.kind === 'flat') {
      doc.fill(rgb(shape.fill.color), 'non-zero');
    } else {
      const gradient = documentGradient(shape.fill, image);
      const shading =
        gradient.kind === 'linear'
          ? doc.linearGradient(gradient.x1, gradient.y1, gradient.x2, gradient.y2)
          : doc.radialGradient(gradient.cx, gradient.cy, 0, gradient.cx, gradient.cy, gradient.r);
      for (const stop of gradient.stops) shading.stop(stop.offset, rgb(stop.color), stop.opacity);
      doc.fill(shading, 'non-zero');
    }
    doc.restore();
  }
  doc.end();
  return done;
}
