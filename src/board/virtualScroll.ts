import { elementScroll, type Rect, type Virtualizer } from "@tanstack/react-virtual";

/**
 * A virtualised column's scrolling: the library's, less its first call. As
 * it mounts, the virtualiser "restores" its initial offset, 0, where a new
 * list already is, and `element.scrollTo` there forced a layout of the whole
 * page in the middle of the board's first commit. Every later call (j/k,
 * keeping a card in view) scrolls, and so does a first call to any other
 * offset. One per virtualiser (it remembers that the mount has passed).
 */
export function scrollAfterMount(): typeof elementScroll {
  let mounted = false;
  return (offset, options, instance) => {
    const first = !mounted;
    mounted = true;
    if (first && offset === 0) return;
    elementScroll(offset, options, instance);
  };
}

/**
 * A card's (or any virtualised row's) height from its ResizeObserver entry.
 * Without one (the ref, while React inserts the cards) the known or estimated height stands: reading
 * `offsetHeight` there forces a layout per card, which cost the first render
 * of a 2,000-card board hundreds of milliseconds. The observer reports every
 * card's real height once, after layout, in one batch.
 */
export function cardHeight(element: Element, entry: ResizeObserverEntry | undefined, instance: Virtualizer<HTMLDivElement, Element>): number {
  const box = entry?.borderBoxSize?.[0];
  if (box !== undefined) return Math.round(box.blockSize);
  if (entry !== undefined) return (element as HTMLElement).offsetHeight; // after layout: cheap
  const index = instance.indexFromElement(element);
  return instance.itemSizeCache.get(instance.options.getItemKey(index)) ?? instance.options.estimateSize(index);
}

/**
 * The column's (or any virtualised list's) visible size from a ResizeObserver only, after layout. The
 * library's default also reads it at once on mount, forcing a layout for each
 * column as the board first renders; until the observer reports, the
 * window's height (an upper bound on the column's) decides what to render.
 */
export function observeListRect(instance: Virtualizer<HTMLDivElement, Element>, onRect: (rect: Rect) => void): (() => void) | undefined {
  const element = instance.scrollElement;
  const view = instance.targetWindow;
  if (element === null || view === null || view.ResizeObserver === undefined) return undefined;
  const observer = new view.ResizeObserver(() => onRect({ width: element.clientWidth, height: element.clientHeight }));
  observer.observe(element, { box: "content-box" });
  return () => observer.disconnect();
}

export const initialListRect = (): Rect => ({ width: 0, height: typeof window === "undefined" ? 800 : window.innerHeight });
