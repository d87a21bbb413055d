// Silhouettes against transparency: anti-aliased rims made opaque before segmenting, so a shape's
// edge joins the shape instead of forming a ring of its own.

/** A sliver against transparency is the anti-aliasing of a shape's edge only within this hue distance of the shape (sum over RGB). */
export const TRANSPARENT_MIXTURE_HUE = 36;
/**
 * Alpha (0–255) below which a silhouette's fringe is coverage only: made opaque only in the shape's
 * hue, and mixed with transparency whatever its hue. At least this opaque, a rim of another hue is a frame.
 */
export const FRINGE_ALPHA = 64;

/**
 * Anti-aliased silhouettes made opaque: a partly transparent pixel with a fully transparent
 * pixel and a nearly opaque one among its eight neighbours sits on a shape's edge against
 * transparency, and its straight colour is the shape's (its alpha is only coverage). Made
 * opaque, it joins the shape instead of forming a dark ring; the edge itself is placed later,
 * where the resampled alpha crosses one half. Soft translucency (shadows, glows) keeps its alpha.
 */
export function opaqueSilhouette(rgba: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(rgba);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const alpha = rgba[i + 3] as number;
      if (alpha === 0 || alpha === 255) continue;
      let clear = false;
      let solid = false;
      // A faint pixel's hue distance to the nearest-coloured solid neighbour.
      let nearest = Infinity;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= width) continue;
          const at = (ny * width + nx) * 4;
          const neighbour = rgba[at + 3] as number;
          if (neighbour <= 8) clear = true;
          else if (neighbour >= 240) {
            solid = true;
            if (alpha < FRINGE_ALPHA) nearest = Math.min(nearest, straightDistance(rgba, i, at));
          }
        }
      }
      if (!clear || !solid) continue;
      // Below a sixteenth of coverage the stored colour is mostly rounding noise: leave it clear.
      if (alpha < 16) out[i + 3] = 0;
      // A faint fringe of another hue than the shape's (a dark halo left by resampling) is not
      // the shape's edge, and made opaque it would draw a line: it stays translucent.
      else if (alpha >= FRINGE_ALPHA || nearest <= TRANSPARENT_MIXTURE_HUE) out[i + 3] = 255;
    }
  }
  return out;
}

/** Sum of RGB differences of two straight (not premultiplied) pixels of an RGBA buffer. */
function straightDistance(rgba: Buffer, a: number, b: number): number {
  let distance = 0;
  for (let c = 0; c < 3; c++) distance += Math.abs((rgba[a + c] as number) - (rgba[b + c] as number));
  return distance;
}

/** RGBA with colour multiplied by alpha: a pixel's colour weighs as much as it is seen. */
export function premultiply(rgba: Buffer): Buffer {
  const out = Buffer.allocUnsafe(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3] as number;
    out[i] = Math.round(((rgba[i] as number) * a) / 255);
    out[i + 1] = Math.round(((rgba[i + 1] as number) * a) / 255);
    out[i + 2] = Math.round(((rgba[i + 2] as number) * a) / 255);
    out[i + 3] = a;
  }
  return out;
}
