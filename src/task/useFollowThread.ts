import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from "react";

/** How close to the bottom (px) still counts as "reading the newest". */
export const AT_BOTTOM_PX = 80;

function distanceFromBottom(el: HTMLElement): number {
  return el.scrollHeight - el.scrollTop - el.clientHeight;
}

/**
 * Keeps a scrolling thread on its newest message: when a newer message
 * arrives (`newestId` changes after the first load) and the reader was at the
 * bottom, or has just sent, it scrolls down; otherwise it offers a jump
 * (`unseen` turns true) instead of moving what they are reading.
 */
export function useFollowThread(scrollRef: RefObject<HTMLElement | null>, newestId: string | undefined, loaded: boolean) {
  const [unseen, setUnseen] = useState(false);
  const wasAtBottom = useRef(true);
  const known = useRef<{ newestId: string | undefined } | null>(null);
  const follow = useRef(false);

  // A newer message: follow it down, or offer the jump. Reads where the reader was after the previous commit.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el === null || !loaded) return;
    if (known.current === null) {
      known.current = { newestId };
      return;
    }
    if (known.current.newestId === newestId) return;
    known.current = { newestId };
    if (newestId !== undefined) {
      if (follow.current || wasAtBottom.current) {
        el.scrollTop = el.scrollHeight;
        setUnseen(false);
      } else {
        setUnseen(true);
      }
    }
    follow.current = false;
  }, [scrollRef, newestId, loaded]);

  // After every commit, note where the reader is, for the next message.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el !== null) wasAtBottom.current = distanceFromBottom(el) <= AT_BOTTOM_PX;
  });

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (el === null) return;
    wasAtBottom.current = distanceFromBottom(el) <= AT_BOTTOM_PX;
    if (wasAtBottom.current) setUnseen(false);
  }, [scrollRef]);

  const jumpToNewest = useCallback(() => {
    const el = scrollRef.current;
    if (el === null) return;
    el.scrollTop = el.scrollHeight;
    wasAtBottom.current = true;
    setUnseen(false);
  }, [scrollRef]);

  /** The reader just sent: follow the next message down even if they had scrolled up. */
  const followNext = useCallback(() => {
    follow.current = true;
  }, []);

  return { unseen, onScroll, jumpToNewest, followNext };
}
