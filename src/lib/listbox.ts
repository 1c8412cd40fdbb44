/** The keys of a list the caret's box controls (a combobox's listbox): the `@`/`#` completions and the `/` menu. */

/** What the list reads of a key press (a React or a DOM keyboard event). */
export type ListboxKeyEvent = { key: string; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean; altKey: boolean; preventDefault(): void };

/** Where a key's effect goes: the list's state is its owner's. */
export type ListboxHandlers = {
  /** Highlight the item at `index`. */
  move: (index: number) => void;
  /** Choose the item at `index`. */
  pick: (index: number) => void;
  /** Close the list. */
  dismiss: () => void;
};

/**
 * One key pressed while a list of `count` items shows with `active` highlighted:
 * the arrows move (wrapping round), Enter or Tab picks, Escape dismisses. A key
 * held with Ctrl, Meta or Alt, Shift with Enter or Tab, any other key, or an
 * empty list is left to the box. Holds no state: it calls one handler and says
 * whether it took the key (true: the box does nothing else with it).
 */
export function listboxKeyDown(event: ListboxKeyEvent, { active, count }: { active: number; count: number }, on: ListboxHandlers): boolean {
  if (count === 0 || event.ctrlKey || event.metaKey || event.altKey) return false;
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    const step = event.key === "ArrowDown" ? 1 : -1;
    on.move((active + step + count) % count);
    return true;
  }
  if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
    event.preventDefault();
    on.pick(active);
    return true;
  }
  if (event.key === "Escape") {
    // Taken here: a drawer around the box sees defaultPrevented and stays open.
    event.preventDefault();
    on.dismiss();
    return true;
  }
  return false;
}
