// A result as a person sees it: the SVG rendered by resvg (the renderer of the PNG writer).
import { Resvg } from '@resvg/resvg-js';

/** Straight-alpha RGBA of `svg` rendered to exactly width × height (the viewBox stretched to fill it). */
export function renderSvg(svg: string, width: number, height: number): Uint8Array {
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: width }, font: { loadSystemFonts: false } }).render();
  if (rendered.width !== width || rendered.height !== height) return resampleNearest(unpremultiply(rendered.pixels), rendered.width, rendered.height, width, height);
  return unpremultiply(rendered.pixels);
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

/** Fitting to a width can round the height a pixel off the source's: the last row or column is repeated or dropped. */
function resampleNearest(rgba: Uint8Array, width: number, height: number, toWidth: number, toHeight: number): Uint8Array {
  const out = new Uint8Array(toWidth * toHeight * 4);
  for (let y = 0; y < toHeight; y++) {
    const sy = Math.min(height - 1, Math.floor((y * height) / toHeight));
    for (let x = 0; x < toWidth; x++) {
      const sx = Math.min(width - 1, Math.floor((x * width) / toWidth));
      out.set(rgba.subarray((sy * width + sx) * 4, (sy * width + sx) * 4 + 4), (y * toWidth + x) * 4);
    }
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
