// Content negotiation for POST /api/v1/vectorize: the Accept header → the JSON response or a
// file format. A pure function; the route refuses with 406 before anything else is done.
import type { FileFormat } from '../../engine/write/index.ts';

export type Negotiated = { kind: 'json' } | { kind: 'file'; format: FileFormat; mediaType: string };

/** What the endpoint can return, in the server's order of preference (JSON first). */
export const REPRESENTATIONS: readonly { mediaType: string; negotiated: Negotiated }[] = [
  { mediaType: 'application/json', negotiated: { kind: 'json' } },
  { mediaType: 'image/svg+xml', negotiated: { kind: 'file', format: 'svg', mediaType: 'image/svg+xml' } },
  { mediaType: 'application/pdf', negotiated: { kind: 'file', format: 'pdf', mediaType: 'application/pdf' } },
  { mediaType: 'application/postscript', negotiated: { kind: 'file', format: 'eps', mediaType: 'application/postscript' } },
  { mediaType: 'image/vnd.dxf', negotiated: { kind: 'file', format: 'dxf', mediaType: 'image/vnd.dxf' } },
  { mediaType: 'application/dxf', negotiated: { kind: 'file', format: 'dxf', mediaType: 'application/dxf' } },
  { mediaType: 'image/png', negotiated: { kind: 'file', format: 'png', mediaType: 'image/png' } },
];

export const ACCEPTABLE = REPRESENTATIONS.map((representation) => representation.mediaType);

export class NotAcceptable extends Error {
  constructor() {
    super(`not acceptable: the Accept header names nothing this endpoint returns; it can return ${ACCEPTABLE.join(', ')}`);
    this.name = 'NotAcceptable';
  }
}

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const match = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)\/([A-Za-z0-9!#$%&'*+.^_`|~-]+)$/.exec(range);
    if (!match) continue;
    let q = 1;
    for (const parameter of parameters) {
      const qMatch = /^q\s*=\s*([0-9.]+)$/i.exec(parameter);
      if (qMatch) q = Math.max(0, Math.min(1, Number(qMatch[1])));
    }
    if (Number.isNaN(q)) q = 0;
    ranges.push({ type: (match[1] as string).toLowerCase(), subtype: (match[2] as string).toLowerCase(), q });
  }
  return ranges;
}

/** The q a media type gets from the most specific range that matches it (RFC 9110, 12.5.1); -1 when none does. */
function quality(mediaType: string, ranges: MediaRange[]): number {
  const [type, subtype] = mediaType.split('/') as [string, string];
  let best = -1;
  let specificity = -1;
  for (const range of ranges) {
    const rank = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' && range.subtype === '*' ? 0 : -1;
    if (rank > specificity) {
      specificity = rank;
      best = range.q;
    }
  }
  return best;
}

/**
 * No Accept header (or an empty one) means the JSON response; otherwise the representation with
 * the highest q wins, ties going to the server's order (so any type means JSON, any image SVG).
 * Throws NotAcceptable when every representation is excluded or unnamed.
 */
export function negotiate(accept: string | undefined): Negotiated {
  if (accept === undefined || accept.trim() === '') return { kind: 'json' };
  const ranges = parseAccept(accept);
  let chosen: Negotiated | undefined;
  let chosenQ = 0;
  for (const { mediaType, negotiated } of REPRESENTATIONS) {
    const q = quality(mediaType, ranges);
    if (q > chosenQ) {
      chosen = negotiated;
      chosenQ = q;
    }
  }
  if (!chosen) throw new NotAcceptable();
  return chosen;
}
