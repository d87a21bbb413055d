// Accessibility checks run inside the page (passed to page.evaluate): labels on every field,
// names on every button, WCAG AA contrast of text, and no sideways scrolling at the width given.
export interface A11yReport {
  unlabelled: string[];
  unnamedButtons: string[];
  lowContrast: string[];
  overflow: number;
}

export function auditPage(): A11yReport {
  const describe = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : ''}`;
  const visible = (el: Element) => {
    const box = (el as HTMLElement).getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  };
  const unlabelled = [...document.querySelectorAll('input, select, textarea')]
    .filter((el) => (el as HTMLInputElement).type !== 'hidden' && visible(el))
    .filter((el) => ((el as HTMLInputElement).labels?.length ?? 0) === 0 && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
    .map(describe);
  const unnamedButtons = [...document.querySelectorAll('button')].filter((b) => visible(b) && (b.textContent ?? '').trim() === '').map(describe);

  const parse = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
  const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
    const channel = (v: number) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  const background = (el: Element | null): number[] => {
    for (let node = el; node; node = node.parentElement) {
      const rgba = parse(getComputedStyle(node).backgroundColor);
      if (rgba.length >= 3 && (rgba[3] === undefined || rgba[3] > 0.5)) return rgba;
    }
    return [255, 255, 255];
  };
  const lowContrast: string[] = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') || !visible(el)) continue;
    const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
    if (!ownText) continue;
    const style = getComputedStyle(el);
    const fg = luminance(parse(style.color));
    const bg = luminance(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) lowContrast.push(`${describe(el)} ${ratio.toFixed(2)}:1 "${(el.textContent ?? '').trim().slice(0, 30)}"`);
  }
  return { unlabelled, unnamedButtons, lowContrast, overflow: document.documentElement.scrollWidth - window.innerWidth };
}

/** The focused element's outline, to check that focus is visible. */
export function focusRing(): { tag: string; outline: string } | null {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  return { tag: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}`, outline: style.outlineStyle === 'none' ? 'none' : `${style.outlineWidth} ${style.outlineStyle}` };
}
