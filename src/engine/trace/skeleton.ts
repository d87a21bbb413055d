// The raster side of centerline tracing: the exact Euclidean distance transform of the ink
// (Felzenszwalb and Huttenlocher, "Distance Transforms of Sampled Functions", Theory of
// Computing 8, 2012) and Zhang–Suen thinning (Zhang and Suen, "A fast parallel algorithm for
// thinning digital patterns", Communications of the ACM 27(3), 1984), visiting only the pixels
// on the ink's current edge, then the staircase corners it leaves removed so every line is one
// pixel wide in the 8-connected sense. No maintained npm package does these for Node (see
// docs/decisions.md).

const INFINITE = 1e20;

/** One row or column of the squared distance transform, in place (the lower envelope of parabolas). */
function transform1d(f: Float64Array, n: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -INFINITE;
  z[1] = INFINITE;
  for (let q = 1; q < n; q++) {
    let s: number;
    for (;;) {
      const r = v[k] as number;
      s = ((f[q] as number) + q * q - ((f[r] as number) + r * r)) / (2 * q - 2 * r);
      if (s <= (z[k] as number) && k > 0) k--;
      else break;
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = INFINITE;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while ((z[k + 1] as number) < q) k++;
    const r = v[k] as number;
    d[q] = (q - r) * (q - r) + (f[r] as number);
  }
}

/**
 * For each pixel, the distance (pixels, centre to centre) to the nearest pixel where `source` is
 * 0: inside the ink, how far the paper is; 0 on the paper. With `outsideIsZero`, pixels beyond
 * the image count as 0 (paper), so ink touching the edge is measured as ending there.
 */
export function distanceToZero(source: Uint8Array, width: number, height: number, outsideIsZero = true): Float32Array {
  // Padded by one pixel all round: paper, or as far as can be.
  const w = width + 2;
  const h = height + 2;
  const grid = new Float64Array(w * h).fill(outsideIsZero ? 0 : INFINITE);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) grid[(y + 1) * w + x + 1] = source[y * width + x] ? INFINITE : 0;
  }
  const size = Math.max(w, h);
  const f = new Float64Array(size);
  const d = new Float64Array(size);
  const v = new Int32Array(size);
  const z = new Float64Array(size + 1);
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) f[y] = grid[y * w + x] as number;
    transform1d(f, h, d, v, z);
    for (let y = 0; y < h; y++) grid[y * w + x] = d[y] as number;
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) f[x] = grid[y * w + x] as number;
    transform1d(f, w, d, v, z);
    for (let x = 0; x < w; x++) grid[y * w + x] = d[x] as number;
  }
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) out[y * width + x] = Math.sqrt(grid[(y + 1) * w + x + 1] as number);
  }
  return out;
}

/** The 8 neighbours in Zhang–Suen's order P2..P9: N, NE, E, SE, S, SW, W, NW. */
const DX = [0, 1, 1, 1, 0, -1, -1, -1] as const;
const DY = [-1, -1, 0, 1, 1, 1, 0, -1] as const;

function neighbourhood(image: Uint8Array, width: number, height: number, p: number, out: Uint8Array): void {
  const x = p % width;
  const y = (p - x) / width;
  for (let k = 0; k < 8; k++) {
    const nx = x + (DX[k] as number);
    const ny = y + (DY[k] as number);
    out[k] = nx >= 0 && ny >= 0 && nx < width && ny < height ? (image[ny * width + nx] as number) : 0;
  }
}

/**
 * Zhang–Suen thinning of `mask` (1 = ink), returned as a new mask one pixel wide along the
 * middle of every line. Each sub-iteration looks only at ink pixels beside paper (the only ones
 * it may remove), so the cost follows the ink, not the image.
 */
export function thin(mask: Uint8Array, width: number, height: number): Uint8Array {
  const image = Uint8Array.from(mask, (value) => (value ? 1 : 0));
  // Pixels to look at: ink beside paper. One looked at in both sub-iterations without anything
  // changing round it stays as it is until a neighbour goes, and is set aside till then.
  const listed = new Uint8Array(image.length);
  const unchanged = new Uint8Array(image.length);
  let edge: number[] = [];
  const ring = new Uint8Array(8);
  for (let p = 0; p < image.length; p++) {
    if (!image[p]) continue;
    neighbourhood(image, width, height, p, ring);
    if (ring.includes(0)) {
      edge.push(p);
      listed[p] = 1;
    }
  }
  const skeleton: number[] = [];
  for (let quiet = 0; quiet < 2 && edge.length > 0; ) {
    for (const step of [0, 1] as const) {
      const remove: number[] = [];
      for (const p of edge) {
        if (!image[p]) continue;
        neighbourhood(image, width, height, p, ring);
        let neighbours = 0;
        let transitions = 0;
        for (let k = 0; k < 8; k++) {
          neighbours += ring[k] as number;
          if (ring[k] === 0 && ring[(k + 1) % 8] === 1) transitions++;
        }
        const [p2, , p4, , p6, , p8] = ring;
        const keep =
          neighbours < 2 ||
          neighbours > 6 ||
          transitions !== 1 ||
          (step === 0 ? (p2 && p4 && p6) || (p4 && p6 && p8) : (p2 && p4 && p8) || (p2 && p6 && p8));
        if (keep) unchanged[p] = Math.min(2, (unchanged[p] as number) + 1);
        else remove.push(p);
      }
      quiet = remove.length === 0 ? quiet + 1 : 0;
      for (const p of remove) image[p] = 0;
      // The ink beside what went is on the edge now, and looked at afresh.
      for (const p of remove) {
        const x = p % width;
        const y = (p - x) / width;
        for (let k = 0; k < 8; k++) {
          const nx = x + (DX[k] as number);
          const ny = y + (DY[k] as number);
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const q = ny * width + nx;
          if (!image[q]) continue;
          unchanged[q] = 0;
          if (!listed[q]) {
            listed[q] = 1;
            edge.push(q);
          }
        }
      }
      const next: number[] = [];
      for (const p of edge) {
        if (!image[p]) continue;
        if ((unchanged[p] as number) >= 2) {
          listed[p] = 0;
          skeleton.push(p);
        } else next.push(p);
      }
      edge = next;
      if (quiet >= 2) break;
    }
  }
  const remaining = [...new Set([...skeleton, ...edge])].filter((p) => image[p]);
  removeStaircaseCorners(image, width, height, remaining);
  return image;
}

/**
 * Zhang–Suen leaves the corner pixel of every diagonal step: a pixel whose only two neighbours
 * are its neighbours above (or below) and beside, which touch each other anyway. It makes both
 * look like junctions; removing it keeps the line connected and one pixel wide.
 */
function removeStaircaseCorners(image: Uint8Array, width: number, height: number, pixels: number[]): void {
  const ring = new Uint8Array(8);
  for (const p of pixels.sort((a, b) => a - b)) {
    if (!image[p]) continue;
    neighbourhood(image, width, height, p, ring);
    let neighbours = 0;
    for (let k = 0; k < 8; k++) neighbours += ring[k] as number;
    if (neighbours !== 2) continue;
    const [n, , e, , s, , w] = ring;
    if ((n && e) || (e && s) || (s && w) || (w && n)) image[p] = 0;
  }
}

/** Skeleton pixels' 8-neighbours that are skeleton too. */
export function degreeOf(skeleton: Uint8Array, width: number, height: number, p: number): number {
  const x = p % width;
  const y = (p - x) / width;
  let count = 0;
  for (let k = 0; k < 8; k++) {
    const nx = x + (DX[k] as number);
    const ny = y + (DY[k] as number);
    if (nx >= 0 && ny >= 0 && nx < width && ny < height && skeleton[ny * width + nx]) count++;
  }
  return count;
}

/** The indices of a pixel's 8-neighbours inside the image. */
export function neighboursOf(p: number, width: number, height: number): number[] {
  const x = p % width;
  const y = (p - x) / width;
  const out: number[] = [];
  for (let k = 0; k < 8; k++) {
    const nx = x + (DX[k] as number);
    const ny = y + (DY[k] as number);
    if (nx >= 0 && ny >= 0 && nx < width && ny < height) out.push(ny * width + nx);
  }
  return out;
}
