// The converter's download links: one per format, to the route that writes the result again
// without another credit (GET /try/results/:id/download). Plain links, as the page without
// this script renders them; the script only fills them in after a conversion made with fetch.
import { downloadLinks } from '../download-links.ts';

export function showDownloads(result: { id: string }, fileName: string): void {
  const box = document.getElementById('downloads');
  if (!box) return;
  const list = document.createElement('ul');
  list.className = 'download-links';
  for (const { href, fileName: name, label } of downloadLinks(result.id, fileName)) {
    const link = document.createElement('a');
    link.href = href;
    link.download = name;
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
