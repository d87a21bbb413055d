// The converter page. A picture dropped or pasted anywhere on the page, or picked, converts at
// once: the original shows while it uploads (a progress bar with the bytes sent) and traces (the
// bar without a value), then the SVG beside it, over it with a slider, or over it faded, at one
// zoom and place (compare.ts). The form posts with XMLHttpRequest for its upload progress, the
// CSRF token as a header. Without this script the form still posts and the page answers with
// the result.
import type { VectorizeResponse } from '../../api/responses.ts';
import { createViewer, type ViewMode } from './compare.ts';
import { showDownloads } from './downloads.ts';
import { acceptImagesAnywhere, takePending } from './handoff.ts';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;

const form = byId<HTMLFormElement>('convert-form');
const fileInput = byId<HTMLInputElement>('image');
const dropZone = byId<HTMLElement>('drop-zone');
const status = byId<HTMLElement>('convert-status');
const submit = byId<HTMLButtonElement>('convert');
const result = byId<HTMLElement>('result');
const original = byId<HTMLImageElement>('preview-original');
const vector = byId<HTMLImageElement>('preview-svg');
const controls = byId<HTMLElement>('zoom-controls');
const progressBox = byId<HTMLElement>('progress-box');
const progress = byId<HTMLProgressElement>('progress');
const progressLabel = byId<HTMLElement>('progress-label');
const slider = byId<HTMLInputElement>('slider');
const opacity = byId<HTMLInputElement>('opacity');
const compare = byId<HTMLElement>('compare');
const paneOriginal = byId<HTMLElement>('pane-original');
const paneSvg = byId<HTMLElement>('pane-svg');
const divider = byId<HTMLElement>('divider');
const sampleInput = form?.querySelector<HTMLInputElement>('input[name=sample]') ?? null;

let svgUrl: string | undefined;
let originalUrl: string | undefined;
let fileName = 'image';
let busy = false;

const viewer =
  compare && paneOriginal && paneSvg && original && vector && divider
    ? createViewer(
        { compare, panes: [paneOriginal, paneSvg], images: [original, vector], topPane: paneSvg, divider, zoomValue: byId('zoom-value') },
        (percent) => {
          if (slider) slider.value = String(percent);
        },
      )
    : undefined;

function say(text: string, isError = false): void {
  if (!status) return;
  status.textContent = text;
  status.classList.toggle('error', isError);
}

function setProgress(state: 'hidden' | 'upload' | 'tracing', percent = 0): void {
  if (!progressBox || !progress || !progressLabel) return;
  progressBox.hidden = state === 'hidden';
  if (state === 'upload') {
    progress.value = percent;
    progressLabel.textContent = `Uploading: ${Math.round(percent)} %`;
  } else if (state === 'tracing') {
    // No value: the bar shows work going on, of unknown length.
    progress.removeAttribute('value');
    progressLabel.textContent = 'Tracing the picture…';
  }
}

function text(id: string, value: string): void {
  const element = byId<HTMLElement>(id);
  if (element) element.textContent = value;
}

/** The original shows, fitted, as soon as it is chosen; the SVG's view waits for the result. */
function showOriginal(file: File): void {
  if (originalUrl) URL.revokeObjectURL(originalUrl);
  originalUrl = URL.createObjectURL(file);
  if (!original || !vector || !result) return;
  vector.hidden = true;
  vector.removeAttribute('src');
  for (const id of ['result-nodes', 'result-fidelity', 'result-time', 'result-credits', 'result-size']) text(id, '…');
  const wasHidden = result.hidden;
  result.hidden = false;
  // The form is long: bring the views into sight as the picture arrives.
  if (wasHidden || result.getBoundingClientRect().top > window.innerHeight) result.scrollIntoView({ block: 'start' });
  original.onload = () => {
    if (controls) controls.hidden = false;
    viewer?.show(original.naturalWidth, original.naturalHeight);
  };
  original.src = originalUrl;
}

function show(converted: VectorizeResponse): void {
  if (svgUrl) URL.revokeObjectURL(svgUrl);
  svgUrl = URL.createObjectURL(new Blob([converted.svg], { type: 'image/svg+xml' }));
  if (vector) {
    vector.src = svgUrl;
    vector.hidden = false;
  }
  text('result-nodes', String(converted.node_count));
  text('result-fidelity', converted.fidelity.toFixed(2));
  text('result-time', `${converted.processing_time_ms} ms`);
  text('result-credits', converted.credits_remaining === null ? 'unmetered' : String(converted.credits_remaining));
  text('result-size', `${converted.width} × ${converted.height} px`);
  if (converted.credits_remaining !== null) text('credits-now', String(converted.credits_remaining));
  if (result) result.hidden = false;
  if (controls) controls.hidden = false;
  // The original's view is kept (it may be zoomed already); only a new size refits.
  if (original && (original.naturalWidth !== converted.width || original.naturalHeight !== converted.height)) viewer?.show(converted.width, converted.height);
  showDownloads(converted, fileName);
}

function post(body: FormData, token: string): Promise<{ status: number; answer: VectorizeResponse | { error: string } }> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', form?.action ?? '/try');
    request.setRequestHeader('accept', 'application/json');
    request.setRequestHeader('x-csrf-token', token);
    request.responseType = 'json';
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) setProgress('upload', (event.loaded / event.total) * 100);
    });
    request.upload.addEventListener('load', () => setProgress('tracing'));
    request.addEventListener('load', () => {
      const answer = request.response as VectorizeResponse | { error: string } | null;
      resolve({ status: request.status, answer: answer ?? { error: `The conversion failed (${request.status}).` } });
    });
    request.addEventListener('error', () => reject(new Error('network')));
    request.addEventListener('abort', () => reject(new Error('aborted')));
    request.send(body);
  });
}

/** Converts the form's file (or its sample) with the form's settings. */
async function convert(): Promise<void> {
  if (!form || !fileInput || busy) return;
  const file = fileInput.files?.[0];
  if (!file) {
    say('Choose an image file to convert, or drop or paste one on this page.', true);
    fileInput.focus();
    return;
  }
  const maxBytes = Number(form.dataset.maxBytes);
  if (maxBytes > 0 && file.size > maxBytes) {
    say('The image is larger than 10 MB. Choose a smaller file.', true);
    fileInput.focus();
    return;
  }
  fileName = file.name;
  if (!originalUrl || original?.dataset.file !== fileKey(file)) {
    showOriginal(file);
    if (original) original.dataset.file = fileKey(file);
  }
  const body = new FormData(form);
  const token = String(body.get('_csrf') ?? '');
  body.delete('_csrf');
  body.delete('sample');
  busy = true;
  if (submit) submit.disabled = true;
  say(`Converting ${file.name}…`);
  setProgress('upload', 0);
  try {
    const { status: code, answer } = await post(body, token);
    if (code !== 200 || 'error' in answer) {
      say('error' in answer ? answer.error : `The conversion failed (${code}).`, true);
      return;
    }
    show(answer);
    say(`Converted: ${answer.node_count} nodes in ${answer.processing_time_ms} ms.`);
  } catch {
    say('The service could not be reached. Check your connection and try again.', true);
  } finally {
    busy = false;
    setProgress('hidden');
    if (submit) submit.disabled = false;
  }
}

const fileKey = (file: File) => `${file.name}:${file.size}:${file.lastModified}`;

/** A picture from a drop, a paste, the home page or a sample: into the form, and converted. */
function take(file: File): void {
  if (!fileInput) return;
  if (busy) {
    say('A conversion is running: wait for it to finish, then drop or paste again.', true);
    return;
  }
  const transfer = new DataTransfer();
  transfer.items.add(file);
  fileInput.files = transfer.files;
  sampleInput?.remove();
  void convert();
}

form?.addEventListener('submit', (event) => {
  event.preventDefault();
  void convert();
});
fileInput?.addEventListener('change', () => {
  if (fileInput.files?.length) {
    sampleInput?.remove();
    void convert();
  }
});
acceptImagesAnywhere(take, (dragging) => dropZone?.classList.toggle('dragging', dragging));
const hint = byId<HTMLElement>('image-hint');
if (hint) hint.textContent = 'Choose a file, drop it anywhere on this page, or paste it (Ctrl+V): it converts at once. PNG, JPEG or WebP, up to 10 MB.';
if (fileInput) fileInput.required = false;

// The comparison's controls.
byId<HTMLButtonElement>('zoom-in')?.addEventListener('click', () => viewer?.zoomBy(2));
byId<HTMLButtonElement>('zoom-out')?.addEventListener('click', () => viewer?.zoomBy(0.5));
byId<HTMLButtonElement>('zoom-fit')?.addEventListener('click', () => viewer?.fit());
byId<HTMLButtonElement>('zoom-actual')?.addEventListener('click', () => viewer?.zoomTo(1));
const modeInputs = [...document.querySelectorAll<HTMLInputElement>('input[name=view-mode]')];
function setMode(mode: ViewMode): void {
  viewer?.setMode(mode);
  viewer?.setOpacity(Number(opacity?.value ?? 100));
  byId<HTMLElement>('slider-field')?.toggleAttribute('hidden', mode !== 'slider');
  byId<HTMLElement>('opacity-field')?.toggleAttribute('hidden', mode !== 'overlay');
  for (const input of modeInputs) input.checked = input.value === mode;
}
for (const input of modeInputs) input.addEventListener('change', () => input.checked && setMode(input.value as ViewMode));
slider?.addEventListener('input', () => viewer?.setDivider(Number(slider.value)));
opacity?.addEventListener('input', () => viewer?.setOpacity(Number(opacity.value)));
// On a phone the two views side by side would be tiny: one view with a slider compares better.
setMode(window.matchMedia('(max-width: 40rem)').matches ? 'slider' : 'side');

// A result the server rendered (the form was posted without this script): wire up its view.
if (vector?.getAttribute('src') && result && !result.hidden) {
  const ready = () => {
    if (controls) controls.hidden = false;
    viewer?.show(vector.naturalWidth, vector.naturalHeight);
  };
  if (vector.complete && vector.naturalWidth > 0) ready();
  else vector.addEventListener('load', ready);
} else {
  // A picture kept on the home page (or before logging in), or a sample: converted at once.
  void (async () => {
    const pending = await takePending();
    if (pending) return take(pending);
    const sampleUrl = sampleInput?.dataset.url;
    if (!sampleUrl) return;
    const response = await fetch(sampleUrl);
    if (!response.ok) return say('The sample could not be loaded. Choose an image of your own.', true);
    const blob = await response.blob();
    take(new File([blob], sampleUrl.replace(/^.*\//, ''), { type: blob.type }));
  })();
}
