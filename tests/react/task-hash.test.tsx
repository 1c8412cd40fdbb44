import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { closeTask, hashForTask, openTask, taskIdFromHash, useOpenTaskId } from "../../src/task/taskHash";

function Probe() {
  return <p data-testid="open">{useOpenTaskId() ?? "none"}</p>;
}

afterEach(() => {
  cleanup();
  window.history.replaceState(null, "", "/");
});

describe("task hash", () => {
  it("reads and writes #task=<id>", () => {
    expect(taskIdFromHash(hashForTask("abc123"))).toBe("abc123");
    expect(taskIdFromHash("#task=")).toBeNull();
    expect(taskIdFromHash("#other")).toBeNull();
    expect(taskIdFromHash("")).toBeNull();
  });

  it("opens and closes the drawer through the URL", () => {
    window.history.replaceState(null, "", "/?x=1#task=from-reload");
    render(<Probe />);
    expect(screen.getByTestId("open").textContent).toBe("from-reload");

    // Opened by a reload: closing clears the hash in place, keeping the query.
    act(() => closeTask());
    expect(screen.getByTestId("open").textContent).toBe("none");
    expect(window.location.search).toBe("?x=1");
    expect(window.location.hash).toBe("");

    act(() => openTask("t1"));
    expect(window.location.hash).toBe("#task=t1");
    expect(screen.getByTestId("open").textContent).toBe("t1");
    // Switching tasks replaces the entry rather than stacking one per task.
    const length = window.history.length;
    act(() => openTask("t2"));
    expect(window.history.length).toBe(length);
    expect(screen.getByTestId("open").textContent).toBe("t2");
  });
});
