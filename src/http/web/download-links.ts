// A converter result's download links, one per format (GET /try/results/:id/download). Shared
// by the pages (server-rendered) and the converter's browser script, so it imports nothing
// that a browser bundle could not carry (the engine's formats only as a type).
import type { FileFormat } from '../../engine/write/index.ts';

/** Every format the engine writes, as the page names them, in the order it shows them. */
const FORMAT_LABELS = [
  ['svg', 'SVG'],
  ['pdf', 'PDF'],
  ['eps', 'EPS'],
  ['dxf', 'DXF'],
  ['png', 'PNG'],
] as const satisfies readonly (readonly [FileFormat, string])[];

export interface DownloadLink {
  format: FileFormat;
  label: string;
  href: string;
  fileName: string;
}

/** `My logo.png` → `My logo.pdf`; anything but letters, digits, `-`, `_`, `.` and spaces becomes `_`. */
export function downloadFileName(original: string, format: FileFormat): string {
  const base = original.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '').replace(/[^\w\-. ]+/g, '_').replace(/^[.\s]+/, '').slice(0, 100);
  return `${base || 'image'}.${format}`;
}

export function downloadLinks(id: string, originalName: string): DownloadLink[] {
  return FORMAT_LABELS.map(([format, label]) => ({
    format,
    label,
    fileName: downloadFileName(originalName, format),
    href: `/try/results/${encodeURIComponent(id)}/download?format=${format}`,
  }));
}
