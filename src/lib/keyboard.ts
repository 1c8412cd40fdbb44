/** Keyboard helpers shared by the shell's and the board's shortcuts. */

/** Whether keys pressed in `target` are text being written (an input, a text area, an editable element). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (target === null || typeof (target as Element).closest !== "function") return false;
  const element = target as HTMLElement;
  if (element.isContentEditable) return true;
  const field = element.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']");
  if (field === null) return false;
  if (field instanceof HTMLInputElement) {
    return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file"].includes(field.type);
  }
  return true;
}
