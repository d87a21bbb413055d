// The home page: a picture dropped, pasted or picked here is kept in the browser (handoff.ts)
// and converted on /try, which takes it at once; a visitor not logged in logs in first (/try
// sends them there and back), and the picture waits for them.
import { acceptImagesAnywhere, keepPending } from './handoff.ts';

const zone = document.getElementById('home-drop');
const input = document.getElementById('home-image') as HTMLInputElement | null;
const note = document.getElementById('home-drop-status');

async function hand(file: File): Promise<void> {
  if (note) note.textContent = `Opening the converter with ${file.name || 'your picture'}…`;
  try {
    await keepPending(file);
  } catch {
    if (note) note.textContent = 'This browser could not keep the picture: open the converter and choose it there.';
    return;
  }
  window.location.assign(zone?.dataset.signedIn === 'true' ? '/try' : '/login?next=%2Ftry');
}

if (zone && input) {
  // Shown only with this script: without it, the links to the converter do the job.
  zone.hidden = false;
  input.addEventListener('change', () => {
    const file = input.files?.[0];
    if (file) void hand(file);
  });
  acceptImagesAnywhere((file) => void hand(file), (dragging) => zone.classList.toggle('dragging', dragging));
}
