// An independent reading of SVG path data for assertions: anchor points per path command.
const ARGS_PER_SEGMENT: Record<string, number> = { m: 2, l: 2, h: 1, v: 1, c: 6, s: 4, q: 4, t: 2, a: 7, z: 0 };

export function countAnchors(svg: string): number {
  let total = 0;
  for (const match of svg.matchAll(/<path\b[^>]*?\sd="([^"]*)"/g)) {
    const d = match[1] ?? '';
    for (const command of d.matchAll(/([MmLlHhVvCcSsQqTtAaZz])([^MmLlHhVvCcSsQqTtAaZz]*)/g)) {
      const letter = (command[1] ?? '').toLowerCase();
      const numbers = (command[2] ?? '').match(/-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi) ?? [];
      const per = ARGS_PER_SEGMENT[letter] ?? 0;
      if (per > 0) total += Math.floor(numbers.length / per);
    }
  }
  return total;
}

export function viewBoxOf(svg: string): string | undefined {
  return /<svg\b[^>]*\sviewBox="([^"]+)"/.exec(svg)?.[1];
}
