// Writes the geometry model as DXF (AutoCAD 2007, AC1021) with @tarikjabiri/dxf, for cutters
// and CAD: every subpath of every filled shape is a closed lightweight polyline (LWPOLYLINE),
// every centerline stroke an open one, curves flattened to within a tolerance, on one layer per
// colour. A gradient shape goes on the layer of its paint's mean colour. With `unit` px one
// drawing unit is one original pixel ($INSUNITS unitless); with mm or in, coordinates are in
// that unit at `dpi` and $INSUNITS says so (4, 1). y points up.

import { DxfWriter, LWPolylineFlags, Units, point2d } from '@tarikjabiri/dxf';
import { flattenGeometry, flattenOpenGeometry } from './flatten.ts';
import { meanColour, type Rgb, type VectorImage } from '../geometry.ts';
import { coordinateRounding } from './document.ts';
import { unitDecimals, unitsPerPixel, type PhysicalSize } from './page.ts';

const DXF_UNITS: Record<PhysicalSize['unit'], Units> = { px: Units.Unitless, mm: Units.Millimeters, in: Units.Inches };

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
export function writeDxf(image: VectorImage, decimals: number, page: PhysicalSize = { unit: 'px', dpi: 96 }, tolerance = 0.25 * 10 ** -decimals): string {
  const dxf = new DxfWriter();
  dxf.setUnits(DXF_UNITS[page.unit]);
  const round = coordinateRounding(image, decimals);
  const workingTolerance = tolerance / Math.max(image.scaleX, image.scaleY);
  // Pixels rounded as in the SVG, then into the unit, rounded as finely again.
  const perPixel = unitsPerPixel(page);
  const places = page.unit === 'px' ? decimals : unitDecimals(decimals, page);
  const inUnit = (pixels: number) => Number((pixels * perPixel).toFixed(places));
  const extent = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  const point = (x: number, y: number) => {
    extent.x0 = Math.min(extent.x0, x);
    extent.y0 = Math.min(extent.y0, y);
    extent.x1 = Math.max(extent.x1, x);
    extent.y1 = Math.max(extent.y1, y);
    return point2d(x, y);
  };
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
    const width = inUnit(image.width);
    const height = inUnit(image.height);
    dxf.addLWPolyline(
      [point(0, 0), point(width, 0), point(width, height), point(0, height)].map((at) => ({ point: at })),
      { flags: LWPolylineFlags.Closed, layerName },
    );
  }
  for (const shape of image.shapes) {
    const layerName = useLayer(meanColour(shape.fill));
    const open = shape.stroke !== undefined;
    for (const geometry of shape.paths) {
      const lines = open ? flattenOpenGeometry(geometry, workingTolerance) : flattenGeometry(geometry, workingTolerance);
      for (const polygon of lines) {
        const vertices: { point: { x: number; y: number } }[] = [];
        let lastX = NaN;
        let lastY = NaN;
        for (let at = 0; at + 1 < polygon.length; at += 2) {
          const x = inUnit(round.x(polygon[at] as number));
          const y = inUnit(flip(round.y(polygon[at + 1] as number)));
          // Flattening at a finer step than the rounding repeats points; a cutter wants each once.
          if (x === lastX && y === lastY) continue;
          vertices.push({ point: point(x, y) });
          lastX = x;
          lastY = y;
        }
        if (open) {
          // A stroke is an open polyline (a loop ends where it began); a pen draws it in one go.
          if (vertices.length >= 2) dxf.addLWPolyline(vertices, { flags: LWPolylineFlags.None, layerName });
          continue;
        }
        const first = vertices[0];
        if (first && vertices.length > 1 && first.point.x === lastX && first.point.y === lastY) vertices.pop();
        if (vertices.length >= 3) dxf.addLWPolyline(vertices, { flags: LWPolylineFlags.Closed, layerName });
      }
    }
  }
  // The drawing's limits are the page; its extents the geometry drawn (readers zoom to them).
  dxf.setVariable('$LIMMIN', { 10: 0, 20: 0 });
  dxf.setVariable('$LIMMAX', { 10: inUnit(image.width), 20: inUnit(image.height) });
  if (Number.isFinite(extent.x0)) {
    dxf.setVariable('$EXTMIN', { 10: extent.x0, 20: extent.y0, 30: 0 });
    dxf.setVariable('$EXTMAX', { 10: extent.x1, 20: extent.y1, 30: 0 });
  }
  return dxf.stringify();
}
