// Writes the geometry model as DXF (AutoCAD 2007, AC1021) with @tarikjabiri/dxf, for cutters
// and CAD: every subpath of every shape is a closed lightweight polyline (LWPOLYLINE), curves
// flattened to within a tolerance, on one layer per fill colour. A gradient shape goes on the
// layer of its paint's mean colour. One drawing unit is one original pixel, y pointing up.

import { DxfWriter, LWPolylineFlags, Units, point2d } from '@tarikjabiri/dxf';
import { flattenGeometry } from './flatten.ts';
import { meanColour, type Rgb, type VectorImage } from '../geometry.ts';
import { coordinateRounding } from './document.ts';

/** The basic AutoCAD Colour Index entries, for readers that ignore true colour (group 420). */
const BASIC_ACI: readonly [number, Rgb][] = [
  [1, { r: 255, g: 0, b: 0 }],
  [2, { r: 255, g: 255, b: 0 }],
  [3, { r: 0, g: 255, b: 0 }],
  [4, { r: 0, g: 255, b: 255 }],
  [5, { r: 0, g: 0, b: 255 }],
  [6, { r: 255, g: 0, b: 255 }],
  [7, { r: 255, g: 255, b: 255 }],
  [8, { r: 128, g: 128, b: 128 }],
  [9, { r: 192, g: 192, b: 192 }],
];

function nearestBasicAci(colour: Rgb): number {
  let best = 7;
  let bestDistance = Infinity;
  for (const [index, { r, g, b }] of BASIC_ACI) {
    const distance = (colour.r - r) ** 2 + (colour.g - g) ** 2 + (colour.b - b) ** 2;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = index;
    }
  }
  // ACI 7 is drawn black on a light background: the right fallback for black too.
  return best;
}

function hex({ r, g, b }: Rgb): string {
  return [r, g, b].map((value) => Math.max(0, Math.min(255, Math.round(value))).toString(16).padStart(2, '0')).join('');
}

/** Layer names: `COLOR_RRGGBB`, the fill colour in hexadecimal. */
export function colourLayerName(colour: Rgb): string {
  return `COLOR_${hex(colour).toUpperCase()}`;
}

/**
 * The DXF text. `tolerance` is how far (original pixels) a flattened curve may stray from the
 * curve; it defaults to a quarter of the rounding step of the coordinates.
 */
export function writeDxf(image: VectorImage, decimals: number, tolerance = 0.25 * 10 ** -decimals): string {
  const dxf = new DxfWriter();
  dxf.setUnits(Units.Unitless);
  const round = coordinateRounding(image, decimals);
  const workingTolerance = tolerance / Math.max(image.scaleX, image.scaleY);
  const layers = new Set<string>();
  const useLayer = (colour: Rgb) => {
    const name = colourLayerName(colour);
    if (!layers.has(name)) {
      const layer = dxf.addLayer(name, nearestBasicAci(colour), 'CONTINUOUS');
      const value = parseInt(hex(colour), 16);
      layer.trueColor = value;
      layers.add(name);
    }
    return name;
  };
  const flip = (y: number) => Number((image.height - y).toFixed(decimals));
  if (image.background) {
    const layerName = useLayer(image.background);
    const { width, height } = image;
    dxf.addLWPolyline(
      [point2d(0, 0), point2d(width, 0), point2d(width, height), point2d(0, height)].map((point) => ({ point })),
      { flags: LWPolylineFlags.Closed, layerName },
    );
  }
  for (const shape of image.shapes) {
    const layerName = useLayer(meanColour(shape.fill));
    for (const geometry of shape.paths) {
      for (const polygon of flattenGeometry(geometry, workingTolerance)) {
        const vertices: { point: { x: number; y: number } }[] = [];
        let lastX = NaN;
        let lastY = NaN;
        for (let at = 0; at + 1 < polygon.length; at += 2) {
          const x = round.x(polygon[at] as number);
          const y = flip(round.y(polygon[at + 1] as number));
          // Flattening at a finer step than the rounding repeats points; a cutter wants each once.
          if (x === lastX && y === lastY) continue;
          vertices.push({ point: point2d(x, y) });
          lastX = x;
          lastY = y;
        }
        const first = vertices[0];
        if (first && vertices.length > 1 && first.point.x === lastX && first.point.y === lastY) vertices.pop();
        if (vertices.length >= 3) dxf.addLWPolyline(vertices, { flags: LWPolylineFlags.Closed, layerName });
      }
    }
  }
  return dxf.stringify();
}
