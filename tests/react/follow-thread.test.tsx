import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useRef } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { useFollowThread } from "../../src/task/useFollowThread";

/** jsdom has no layout: the scroller's geometry is set by hand (content 1000 px in a 200 px box). */
function setGeometry(el: HTMLElement, scrollTop: number) {
  Object.defineProperty(el, "scrollHeight", { configurable: true, value: 1000 });
  Object.defineProperty(el, "clientHeight", { configurable: true, value: 200 });
  el.scrollTop = scrollTop;
}

function Thread({ newestId, loaded = true }: { newestId: string | undefined; loaded?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const follow = useFollowThread(ref, newestId, loaded);
  return (
    <div>
      <div ref={ref} data-testid="scroller" onScroll={follow.onScroll} />
      {follow.unseen && (
        <button type="button" onClick={follow.jumpToNewest}>
          New messages
        </button>
      )}
      <button type="button" onClick={follow.followNext}>
        Sent
      </button>
    </div>
  );
}

afterEach(cleanup);

/** The thread with one message, the reader scrolled to `scrollTop`, then a newer message arriving; returns the scroller. */
function newMessageWhileAt(scrollTop: number): HTMLElement {
  const { rerender } = render(<Thread newestId="m1" />);
  const scroller = screen.getByTestId("scroller");
  setGeometry(scroller, scrollTop);
  fireEvent.scroll(scroller);
  rerender(<Thread newestId="m2" />);
  return scroller;
}

describe("following a task's thread", () => {
  it("at the bottom, a new message scrolls into view", () => {
    const scroller = newMessageWhileAt(800);
    expect(scroller.scrollTop).toBe(1000);
    expect(screen.queryByText("New messages")).toBeNull();
  });

  it("scrolled up, a new message leaves the reader in place and offers a jump", () => {
    const scroller = newMessageWhileAt(100);
    expect(scroller.scrollTop).toBe(100);
    fireEvent.click(screen.getByText("New messages"));
    expect(scroller.scrollTop).toBe(1000);
    expect(screen.queryByText("New messages")).toBeNull();
  });

  it("the first load does not move the reader, and sending follows even from above", () => {
    const { rerender } = render(<Thread newestId={undefined} loaded={false} />);
    const scroller = screen.getByTestId("scroller");
    setGeometry(scroller, 0);
    rerender(<Thread newestId="m1" loaded />);
    expect(scroller.scrollTop).toBe(0);
    act(() => screen.getByText("Sent").click());
    rerender(<Thread newestId="m2" loaded />);
    expect(scroller.scrollTop).toBe(1000);
    expect(screen.queryByText("New messages")).toBeNull();
  });

  it("scrolling back down by hand clears the jump", () => {
    const scroller = newMessageWhileAt(0);
    screen.getByText("New messages");
    scroller.scrollTop = 800;
    fireEvent.scroll(scroller);
    expect(screen.queryByText("New messages")).toBeNull();
  });
});
