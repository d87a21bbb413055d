// The comparison of the original and the SVG: one place and one zoom for both views, always.
// Drag to pan (both move together), wheel or pinch to zoom about the pointer, keys + - 0 1 and
// the arrows; three modes: side by side, a slider (the SVG over the original, cut at a divider)
// and an overlay (the SVG over the original at an opacity). Images are sized (not CSS-scaled),
// so the SVG is drawn sharp at every zoom.

export type ViewMode = 'side' | 'slider' | 'overlay';

export interface ViewerElements {
  compare: HTMLElement;
  panes: HTMLElement[];
  images: HTMLImageElement[];
  /** The SVG's pane: clipped in slider mode, faded in overlay mode. */
  topPane: HTMLElement;
  divider: HTMLElement;
  zoomValue: HTMLElement | null;
}

export interface Viewer {
  /** A new picture of this pixel size: fitted to the view. */
  show(width: number, height: number): void;
  fit(): void;
  /** Zoom to `scale` (1 = 100 %) about a point of the pane (its centre by default). */
  zoomTo(scale: number, at?: { x: number; y: number }): void;
  zoomBy(factor: number): void;
  setMode(mode: ViewMode): void;
  setDivider(percent: number): void;
  setOpacity(percent: number): void;
  readonly scale: number;
}

export const MAX_SCALE = 16;
const KEY_STEP = 1.25;
const PAN_STEP = 40;
/** How much of the picture always stays in view, in CSS pixels. */
const KEEP_VISIBLE = 32;

export function createViewer(elements: ViewerElements, onDivider?: (percent: number) => void): Viewer {
  const { compare, panes, images, topPane, divider, zoomValue } = elements;
  let width = 0;
  let height = 0;
  let scale = 1;
  let x = 0;
  let y = 0;
  let mode: ViewMode = 'side';
  let dividerAt = 50;
  compare.classList.add('live');

  /** The pane an event happened in; in slider and overlay modes both share one place. */
  const paneOf = (target: EventTarget | null): HTMLElement => {
    const pane = target instanceof Element ? target.closest<HTMLElement>('.pane') : null;
    return pane ?? panes.find((p) => p.clientWidth > 0) ?? (panes[0] as HTMLElement);
  };
  const size = (pane: HTMLElement) => ({ w: pane.clientWidth, h: pane.clientHeight });
  const fitScale = () => {
    const { w, h } = size(paneOf(null));
    return width > 0 && w > 0 && h > 0 ? Math.min(w / width, h / height) : 1;
  };
  const minScale = () => Math.min(fitScale(), 1) / 2;

  // The pane's last size, and whether the view is still "fitted": a new pane size (another
  // mode, a turned phone) fits again, or keeps the centre of the view where it was.
  let last = { w: 0, h: 0 };
  let fitted = false;

  function apply(): void {
    const { w, h } = size(paneOf(null));
    if (last.w > 0 && (w !== last.w || h !== last.h)) {
      if (fitted) {
        last = { w, h };
        fit();
        return;
      }
      x += (w - last.w) / 2;
      y += (h - last.h) / 2;
    }
    last = { w, h };
    // Keep a corner of the picture in view, whatever the pan.
    x = Math.min(w - KEEP_VISIBLE, Math.max(KEEP_VISIBLE - width * scale, x));
    y = Math.min(h - KEEP_VISIBLE, Math.max(KEEP_VISIBLE - height * scale, y));
    for (const image of images) {
      image.style.width = `${width * scale}px`;
      image.style.height = `${height * scale}px`;
      image.style.transform = `translate(${x}px, ${y}px)`;
      // Past 200 % the original shows its pixels as squares rather than a blur.
      image.classList.toggle('pixelated', scale >= 2);
    }
    if (zoomValue) zoomValue.textContent = `${Math.round(scale * 100)} %`;
  }

  function zoomTo(next: number, at?: { x: number; y: number }): void {
    if (width === 0) return;
    const { w, h } = size(paneOf(null));
    const point = at ?? { x: w / 2, y: h / 2 };
    // 800 % always; up to 1600 % while the drawn image stays under ~40 000 px a side.
    const maxScale = Math.max(8, Math.min(MAX_SCALE, 40_000 / Math.max(width, height)));
    const clamped = Math.min(maxScale, Math.max(minScale(), next));
    fitted = false;
    // The picture's point under `point` stays under it.
    x = point.x - ((point.x - x) * clamped) / scale;
    y = point.y - ((point.y - y) * clamped) / scale;
    scale = clamped;
    apply();
  }

  function fit(): void {
    if (width === 0) return;
    const { w, h } = size(paneOf(null));
    scale = fitScale();
    x = (w - width * scale) / 2;
    y = (h - height * scale) / 2;
    last = { w, h };
    apply();
    fitted = true;
  }

  const local = (pane: HTMLElement, clientX: number, clientY: number) => {
    const rect = pane.getBoundingClientRect();
    return { x: clientX - rect.left - pane.clientLeft, y: clientY - rect.top - pane.clientTop };
  };

  compare.addEventListener(
    'wheel',
    (event) => {
      if (width === 0) return;
      event.preventDefault();
      const lines = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? 400 : 1;
      const pane = paneOf(event.target);
      zoomTo(scale * Math.exp((-event.deltaY * lines) / 500), local(pane, event.clientX, event.clientY));
    },
    { passive: false },
  );

  // Pan with one pointer, pinch with two.
  const pointers = new Map<number, { x: number; y: number }>();
  let pinch: { distance: number; mid: { x: number; y: number } } | undefined;
  const pinchOf = (pane: HTMLElement) => {
    const [a, b] = [...pointers.values()] as [{ x: number; y: number }, { x: number; y: number }];
    return { distance: Math.hypot(a.x - b.x, a.y - b.y), mid: local(pane, (a.x + b.x) / 2, (a.y + b.y) / 2) };
  };
  for (const pane of panes) {
    pane.addEventListener('pointerdown', (event) => {
      if (width === 0 || event.button !== 0) return;
      pane.setPointerCapture(event.pointerId);
      pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      pinch = pointers.size === 2 ? pinchOf(pane) : undefined;
      pane.classList.add('grabbing');
    });
    pane.addEventListener('pointermove', (event) => {
      const previous = pointers.get(event.pointerId);
      if (!previous) return;
      const moved = { x: event.clientX, y: event.clientY };
      pointers.set(event.pointerId, moved);
      if (pointers.size === 1) {
        x += moved.x - previous.x;
        y += moved.y - previous.y;
        fitted = false;
        apply();
      } else if (pinch && pointers.size === 2) {
        const now = pinchOf(pane);
        x += now.mid.x - pinch.mid.x;
        y += now.mid.y - pinch.mid.y;
        fitted = false;
        if (pinch.distance > 0) zoomTo((scale * now.distance) / pinch.distance, now.mid);
        else apply();
        pinch = now;
      }
    });
    const release = (event: PointerEvent) => {
      pointers.delete(event.pointerId);
      pinch = pointers.size === 2 ? pinchOf(pane) : undefined;
      if (pointers.size === 0) pane.classList.remove('grabbing');
    };
    pane.addEventListener('pointerup', release);
    pane.addEventListener('pointercancel', release);
  }

  function pan(dx: number, dy: number): void {
    x += dx;
    y += dy;
    fitted = false;
    apply();
  }

  compare.addEventListener('keydown', (event) => {
    if (width === 0 || event.altKey || event.ctrlKey || event.metaKey) return;
    if (!(event.target instanceof Element) || !event.target.closest('.pane')) return;
    const actions: Record<string, () => void> = {
      '+': () => zoomTo(scale * KEY_STEP),
      '=': () => zoomTo(scale * KEY_STEP),
      '-': () => zoomTo(scale / KEY_STEP),
      _: () => zoomTo(scale / KEY_STEP),
      '0': fit,
      '1': () => zoomTo(1),
      ArrowLeft: () => pan(PAN_STEP, 0),
      ArrowRight: () => pan(-PAN_STEP, 0),
      ArrowUp: () => pan(0, PAN_STEP),
      ArrowDown: () => pan(0, -PAN_STEP),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });

  // The slider's divider, dragged (the range input is its keyboard twin).
  divider.addEventListener('pointerdown', (event) => {
    event.stopPropagation();
    divider.setPointerCapture(event.pointerId);
  });
  divider.addEventListener('pointermove', (event) => {
    if (!divider.hasPointerCapture(event.pointerId)) return;
    const rect = topPane.getBoundingClientRect();
    const percent = ((event.clientX - rect.left) / rect.width) * 100;
    viewer.setDivider(percent);
    onDivider?.(dividerAt);
  });

  function applyMode(): void {
    compare.classList.toggle('stacked', mode !== 'side');
    compare.dataset.mode = mode;
    divider.hidden = mode !== 'slider';
    topPane.style.clipPath = mode === 'slider' ? `inset(0 0 0 ${dividerAt}%)` : '';
    divider.style.left = `${dividerAt}%`;
  }

  window.addEventListener('resize', () => apply());

  const viewer: Viewer = {
    show(w, h) {
      width = w;
      height = h;
      fit();
    },
    fit,
    zoomTo,
    zoomBy: (factor) => zoomTo(scale * factor),
    setMode(next) {
      mode = next;
      applyMode();
      // The panes changed size: keep the zoom, and the picture in view.
      apply();
    },
    setDivider(percent) {
      dividerAt = Math.min(100, Math.max(0, Math.round(percent * 10) / 10));
      applyMode();
    },
    setOpacity(percent) {
      topPane.style.opacity = mode === 'overlay' ? String(Math.min(100, Math.max(0, percent)) / 100) : '';
    },
    get scale() {
      return scale;
    },
  };
  applyMode();
  return viewer;
}
