import { describe, expect, it } from "vitest";
import { listboxKeyDown, type ListboxKeyEvent } from "../../src/lib/listbox";

/** A key press as the list sees it, recording whether its default was prevented. */
function press(key: string, held: Partial<Pick<ListboxKeyEvent, "shiftKey" | "ctrlKey" | "metaKey" | "altKey">> = {}) {
  const event = { key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...held, prevented: false, preventDefault: () => (event.prevented = true) };
  return event;
}

/** Runs one key against a list of `count` with `active` highlighted: what it returned, prevented and asked for. */
function run(event: ReturnType<typeof press>, active: number, count: number) {
  const calls: string[] = [];
  const took = listboxKeyDown(event, { active, count }, { move: (i) => calls.push(`move ${i}`), pick: (i) => calls.push(`pick ${i}`), dismiss: () => calls.push("dismiss") });
  return { took, prevented: event.prevented, calls };
}

describe("listboxKeyDown", () => {
  it("moves with the arrows, wrapping round at either end", () => {
    expect(run(press("ArrowDown"), 0, 3)).toEqual({ took: true, prevented: true, calls: ["move 1"] });
    expect(run(press("ArrowDown"), 2, 3)).toEqual({ took: true, prevented: true, calls: ["move 0"] });
    expect(run(press("ArrowUp"), 1, 3)).toEqual({ took: true, prevented: true, calls: ["move 0"] });
    expect(run(press("ArrowUp"), 0, 3)).toEqual({ took: true, prevented: true, calls: ["move 2"] });
    expect(run(press("ArrowDown"), 0, 1)).toEqual({ took: true, prevented: true, calls: ["move 0"] });
  });

  it("picks the active item with Enter or Tab", () => {
    expect(run(press("Enter"), 2, 3)).toEqual({ took: true, prevented: true, calls: ["pick 2"] });
    expect(run(press("Tab"), 0, 3)).toEqual({ took: true, prevented: true, calls: ["pick 0"] });
  });

  it("dismisses with Escape, preventing its default so a drawer around the box stays open", () => {
    expect(run(press("Escape"), 1, 3)).toEqual({ took: true, prevented: true, calls: ["dismiss"] });
  });

  it("leaves Shift+Enter, Shift+Tab, modified keys and other keys to the box", () => {
    const untouched = { took: false, prevented: false, calls: [] };
    expect(run(press("Enter", { shiftKey: true }), 0, 3)).toEqual(untouched);
    expect(run(press("Tab", { shiftKey: true }), 0, 3)).toEqual(untouched);
    for (const held of ["ctrlKey", "metaKey", "altKey"] as const) {
      for (const key of ["ArrowDown", "Enter", "Escape"]) expect(run(press(key, { [held]: true }), 0, 3)).toEqual(untouched);
    }
    expect(run(press("a"), 0, 3)).toEqual(untouched);
    expect(run(press("ArrowLeft"), 0, 3)).toEqual(untouched);
  });

  it("takes no key while the list is empty", () => {
    for (const key of ["ArrowDown", "ArrowUp", "Enter", "Tab", "Escape"]) expect(run(press(key), 0, 0)).toEqual({ took: false, prevented: false, calls: [] });
  });
});
