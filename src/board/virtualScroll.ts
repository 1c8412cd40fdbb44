import { elementScroll } from "@tanstack/react-virtual";

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
