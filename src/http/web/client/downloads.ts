// The converter's download links: one per format, to the route that writes the result again
// without another credit (GET /try/results/:id/download). Plain links, as the page without
// this script renders them; the script only fills them in after a conversion made with fetch.

const FORMATS = [
  ['svg', 'SVG'],
  ['pdf', 'PDF'],
  ['eps', 'EPS'],
  ['dxf', 'DXF'],
  ['png', 'PNG'],
] as const;

/** `My logo.png` → `My logo.pdf`, with the server's rule for the characters kept. */
function fileNameOf(original: string, format: string): string {
  const base = original.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '').replace(/[^\w\-. ]+/g, '_').replace(/^[.\s]+/, '').slice(0, 100);
  return `${base || 'image'}.${format}`;
}

export function showDownloads(result: { id: string }, fileName: string): void {
  const box = document.getElementById('downloads');
  if (!box) return;
  const list = document.createElement('ul');
  list.className = 'download-links';
  for (const [format, label] of FORMATS) {
    const link = document.createElement('a');
    link.href = `/try/results/${encodeURIComponent(result.id)}/download?format=${format}`;
    link.download = fileNameOf(fileName, format);
    link.textContent = `Download ${label}`;
    const item = document.createElement('li');
    item.append(link);
    list.append(item);
  }
  const old = box.querySelector('ul');
  if (old) old.replaceWith(list);
  else box.append(list);
  box.hidden = false;
}
