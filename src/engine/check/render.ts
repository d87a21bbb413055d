// A result as a person sees it: the SVG rendered by resvg (the renderer of the PNG writer).
import { Resvg } from '@resvg/resvg-js';

/**
 * Straight-alpha RGBA of `svg` rendered to exactly width × height, the viewBox stretched along each
 * side to fill it: fitted to the width alone, a picture of blocks wider than tall compared at its
 * own grid came out a sixth too tall and was cut to size (a trace exact to the pixel scored 0.726).
 */
export function renderSvg(svg: string, width: number, height: number): Uint8Array {
  const stretched = croppedSvg(svg, width, height, { left: 0, top: 0, width, height });
  return unpremultiply(new Resvg(stretched, { font: { loadSystemFonts: false } }).render().pixels);
}

/** resvg hands out premultiplied pixels; the comparison composites straight colours itself. */
function unpremultiply(pixels: Uint8Array): Uint8Array {
  const out = new Uint8Array(pixels.length);
  for (let i = 0; i < pixels.length; i += 4) {
    const a = pixels[i + 3] as number;
    out[i + 3] = a;
    if (a === 0) continue;
    out[i] = Math.min(255, Math.round(((pixels[i] as number) * 255) / a));
    out[i + 1] = Math.min(255, Math.round(((pixels[i + 1] as number) * 255) / a));
    out[i + 2] = Math.min(255, Math.round(((pixels[i + 2] as number) * 255) / a));
  }
  return out;
}

/** A rectangle of an image, in its pixels. */
export interface PixelRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

const ROOT = /<svg\b[^>]*>/;

function numberAttribute(tag: string, name: string): number | undefined {
  const value = new RegExp(`\\s${name}\\s*=\\s*["']\\s*([\\d.]+)`).exec(tag)?.[1];
  return value === undefined ? undefined : Number(value);
}

/**
 * The SVG with its root narrowed to `crop` of the image it draws at `width`×`height`: the viewBox
 * covers the crop's part of the user space, the size is the crop's, so resvg renders only it.
 */
export function croppedSvg(svg: string, width: number, height: number, crop: PixelRect): string {
  const root = ROOT.exec(svg)?.[0];
  if (!root) throw new Error('croppedSvg: no <svg> element');
  const viewBox = /\sviewBox\s*=\s*["']([^"']+)["']/.exec(root)?.[1]?.trim().split(/[\s,]+/).map(Number);
  const [vx = 0, vy = 0, vw = numberAttribute(root, 'width') ?? width, vh = numberAttribute(root, 'height') ?? height] = viewBox ?? [];
  const sx = vw / width;
  const sy = vh / height;
  const narrowed = root
    .replace(/\s(width|height|viewBox|preserveAspectRatio)\s*=\s*["'][^"']*["']/g, '')
    .replace(
      /^<svg\b/,
      `<svg width="${crop.width}" height="${crop.height}" viewBox="${vx + crop.left * sx} ${vy + crop.top * sy} ${crop.width * sx} ${crop.height * sy}" preserveAspectRatio="none"`,
    );
  return svg.replace(root, narrowed);
}
