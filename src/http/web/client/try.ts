// The converter page: sends the form with fetch (the CSRF token as a header), then shows the
// original and the SVG side by side at one zoom, and links the result's downloads in every
// format (downloads.ts). Without this script the form still posts and the page answers with the result.

import type { VectorizeResponse } from '../../api/responses.ts';
import { showDownloads } from './downloads.ts';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;

const form = byId<HTMLFormElement>('convert-form');
const fileInput = byId<HTMLInputElement>('image');
const dropZone = byId<HTMLElement>('drop-zone');
const status = byId<HTMLElement>('convert-status');
const submit = byId<HTMLButtonElement>('convert');
const result = byId<HTMLElement>('result');
const original = byId<HTMLImageElement>('preview-original');
const vector = byId<HTMLImageElement>('preview-svg');
const zoom = byId<HTMLInputElement>('zoom');
const zoomValue = byId<HTMLOutputElement>('zoom-value');
const zoomControls = byId<HTMLElement>('zoom-controls');
const paneOriginal = byId<HTMLElement>('pane-original');
const paneSvg = byId<HTMLElement>('pane-svg');

let svgUrl: string | undefined;
let originalUrl: string | undefined;
let fileName = 'image';
let natural = { width: 0, height: 0 };

function say(text: string, isError = false): void {
  if (!status) return;
  status.textContent = text;
  status.classList.toggle('error', isError);
}

/** Both previews at the same scale: `percent` of the original's pixel size. */
function applyZoom(percent: number): void {
  const value = Math.min(800, Math.max(25, Math.round(percent / 25) * 25));
  if (zoom) {
    zoom.value = String(value);
    zoom.setAttribute('aria-valuetext', `${value} %`);
  }
  if (zoomValue) zoomValue.textContent = `${value} %`;
  for (const image of [original, vector]) {
    if (!image || natural.width === 0) continue;
    image.style.width = `${(natural.width * value) / 100}px`;
    image.style.height = `${(natural.height * value) / 100}px`;
  }
}

/** Scrolling one pane scrolls the other to the same place. */
function linkScrolling(from: HTMLElement | null, to: HTMLElement | null): void {
  from?.addEventListener('scroll', () => {
    if (!to) return;
    to.scrollLeft = from.scrollLeft;
    to.scrollTop = from.scrollTop;
  });
}

function fitZoom(): number {
  const pane = paneSvg?.clientWidth ?? 300;
  return natural.width > 0 ? Math.max(25, Math.min(100, Math.floor(((pane - 4) / natural.width) * 100 / 25) * 25)) : 100;
}

function show(converted: VectorizeResponse): void {
  natural = { width: converted.width, height: converted.height };
  if (svgUrl) URL.revokeObjectURL(svgUrl);
  svgUrl = URL.createObjectURL(new Blob([converted.svg], { type: 'image/svg+xml' }));
  if (vector) vector.src = svgUrl;
  if (original && originalUrl) original.src = originalUrl;
  const text = (id: string, value: string) => {
    const element = byId<HTMLElement>(id);
    if (element) element.textContent = value;
  };
  text('result-nodes', String(converted.node_count));
  text('result-time', `${converted.processing_time_ms} ms`);
  text('result-credits', converted.credits_remaining === null ? 'unmetered' : String(converted.credits_remaining));
  text('result-size', `${converted.width} × ${converted.height} px`);
  if (converted.credits_remaining !== null) text('credits-now', String(converted.credits_remaining));
  if (result) result.hidden = false;
  if (zoomControls) zoomControls.hidden = false;
  showDownloads(converted, fileName);
  applyZoom(fitZoom());
}

async function convert(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (!form || !fileInput) return;
  const file = fileInput.files?.[0];
  if (!file) {
    say('Choose an image file to convert.', true);
    fileInput.focus();
    return;
  }
  const maxBytes = Number(form.dataset.maxBytes);
  if (maxBytes > 0 && file.size > maxBytes) {
    say('The image is larger than 10 MB. Choose a smaller file.', true);
    fileInput.focus();
    return;
  }
  if (originalUrl) URL.revokeObjectURL(originalUrl);
  originalUrl = URL.createObjectURL(file);
  fileName = file.name;
  const body = new FormData(form);
  const token = String(body.get('_csrf') ?? '');
  body.delete('_csrf');
  if (submit) submit.disabled = true;
  say('Converting…');
  try {
    const response = await fetch(form.action, { method: 'POST', body, headers: { accept: 'application/json', 'x-csrf-token': token } });
    const answer = (await response.json()) as VectorizeResponse | { error: string };
    if (!response.ok || 'error' in answer) {
      say('error' in answer ? answer.error : `The conversion failed (${response.status}).`, true);
      return;
    }
    show(answer);
    say(`Converted: ${answer.node_count} nodes in ${answer.processing_time_ms} ms.`);
  } catch {
    say('The service could not be reached. Check your connection and try again.', true);
  } finally {
    if (submit) submit.disabled = false;
  }
}

form?.addEventListener('submit', (event) => void convert(event));

dropZone?.addEventListener('dragover', (event) => {
  event.preventDefault();
  dropZone.classList.add('dragging');
});
dropZone?.addEventListener('dragleave', () => dropZone.classList.remove('dragging'));
dropZone?.addEventListener('drop', (event) => {
  event.preventDefault();
  dropZone.classList.remove('dragging');
  const files = event.dataTransfer?.files;
  if (fileInput && files && files.length > 0) {
    fileInput.files = files;
    say(`Ready to convert ${files[0]?.name ?? 'the image'}.`);
  }
});

zoom?.addEventListener('input', () => applyZoom(Number(zoom.value)));
byId<HTMLButtonElement>('zoom-in')?.addEventListener('click', () => applyZoom(Number(zoom?.value ?? 100) * 2));
byId<HTMLButtonElement>('zoom-out')?.addEventListener('click', () => applyZoom(Number(zoom?.value ?? 100) / 2));
byId<HTMLButtonElement>('zoom-fit')?.addEventListener('click', () => applyZoom(100));
linkScrolling(paneOriginal, paneSvg);
linkScrolling(paneSvg, paneOriginal);

// A result the server rendered (the form was posted without this script): wire up its zoom.
if (vector?.getAttribute('src') && result && !result.hidden) {
  vector.addEventListener('load', () => {
    natural = { width: vector.naturalWidth, height: vector.naturalHeight };
    if (zoomControls) zoomControls.hidden = false;
    applyZoom(fitZoom());
  });
}
