import { useLayoutEffect, useRef, useState } from "react";
import { initials } from "../board/initials";
import { Avatar } from "../components/ui/Avatar";
import { Button } from "../components/ui/Button";
import { SkeletonRows } from "../components/ui/Skeleton";
import { cn } from "../lib/cn";
import { authorKind, formatChatTime, mentionParts } from "./format";
import type { ChatMessage } from "./types";

/** How close to the bottom (px) still counts as "reading the newest". */
const STICK_PX = 40;

type Props = {
  /** Oldest first; `undefined` while loading. */
  messages: readonly ChatMessage[] | undefined;
  /** The time "today" is judged from, in ms since the epoch. */
  now: number;
  /** Bumped when the user sends: the timeline jumps to the newest message even if they had scrolled up. */
  followSignal?: number;
  /** Names whose @mentions are highlighted (the department's agents). */
  mentionNames?: readonly string[];
  className?: string;
};

/**
 * The #maestro timeline as pure props. It keeps to the newest message as
 * messages arrive, unless the user has scrolled up to read; then a "Newest"
 * button takes them back down.
 */
export function ChatTimeline({ messages, now, followSignal = 0, mentionNames = [], className }: Props) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  // A ref, not state: it is read in the layout effect below and must not re-render on every scroll.
  const stuck = useRef(true);
  const handledSignal = useRef(followSignal);
  const [awayFromBottom, setAwayFromBottom] = useState(false);
  const lastId = messages?.at(-1)?.id;

  useLayoutEffect(() => {
    const scroller = scrollerRef.current;
    if (scroller === null) return;
    if (handledSignal.current !== followSignal) {
      handledSignal.current = followSignal;
      stuck.current = true;
    }
    // Nothing left to scroll (a new session emptied the pane): back to following.
    if (scroller.scrollHeight - scroller.clientHeight <= STICK_PX) {
      stuck.current = true;
      setAwayFromBottom(false);
    }
    if (stuck.current) scroller.scrollTop = scroller.scrollHeight;
  }, [lastId, messages?.length, followSignal]);

  // The box changes size too (a folded pane opening, the window resizing): stay on the newest then as well.
  useLayoutEffect(() => {
    const scroller = scrollerRef.current;
    if (scroller === null || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      if (stuck.current) scroller.scrollTop = scroller.scrollHeight;
    });
    observer.observe(scroller);
    return () => observer.disconnect();
  }, []);

  function onScroll() {
    const scroller = scrollerRef.current;
    if (scroller === null) return;
    const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= STICK_PX;
    stuck.current = atBottom;
    if (awayFromBottom === atBottom) setAwayFromBottom(!atBottom);
  }

  function jumpToNewest() {
    const scroller = scrollerRef.current;
    if (scroller === null) return;
    stuck.current = true;
    setAwayFromBottom(false);
    scroller.scrollTop = scroller.scrollHeight;
  }

  return (
    <div className={cn("relative flex min-h-0 flex-col", className)}>
      <div
        ref={scrollerRef}
        onScroll={onScroll}
        data-testid="chat-timeline"
        // Focusable so keyboard users can scroll it.
        tabIndex={0}
        aria-label="#maestro messages"
        role="log"
        className="min-h-0 flex-1 overflow-y-auto overscroll-contain focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-600"
      >
        {messages === undefined ? (
          <TimelineSkeleton />
        ) : messages.length === 0 ? (
          <p className="px-4 py-2 text-center text-xs text-slate-500 dark:text-slate-400">
            No messages in this session yet. Agents read #maestro at the start of their next turn.
          </p>
        ) : (
          <ol className="flex flex-col gap-1.5 px-4 py-3">
            {messages.map((message) => (
              <ChatMessageItem key={message.id} message={message} now={now} mentionNames={mentionNames} />
            ))}
          </ol>
        )}
      </div>
      {awayFromBottom && messages !== undefined && messages.length > 0 && (
        <Button
          variant="secondary"
          onClick={jumpToNewest}
          className="absolute bottom-2 left-1/2 -translate-x-1/2 rounded-full px-3 py-1 text-xs shadow-sm"
        >
          ↓ Newest
        </Button>
      )}
    </div>
  );
}

const AUTHOR_CHIP = {
  human: "bg-emerald-50 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-950/40 dark:text-emerald-300 dark:ring-emerald-400/30",
  agent: "bg-indigo-50 text-indigo-700 ring-indigo-600/20 dark:bg-indigo-950/40 dark:text-indigo-300 dark:ring-indigo-400/30",
} as const;

function ChatMessageItem({ message, now, mentionNames }: { message: ChatMessage; now: number; mentionNames: readonly string[] }) {
  const kind = authorKind(message.author);
  const time = formatChatTime(message.ts, now);
  // A person's post is the spec's `@human`; the pane shows who it was instead of the chip.
  const person = kind === "human" ? message.postedBy : undefined;
  // One flowing line (who, when, what), so a short message takes one line and the pane holds many.
  return (
    <li data-testid="chat-message" data-author-kind={kind} className="text-sm leading-5 break-words">
      {person ? (
        <span data-testid="chat-person" title={`${person.name}, from the WebUI`} className="mr-1.5 inline-flex max-w-full items-center gap-1.5 align-top">
          <Avatar initials={initials(person.name)} tone="member" className="size-5 text-[9px] ring-0" />
          <span className="truncate text-xs leading-5 font-semibold text-slate-900 dark:text-slate-100">{person.name}</span>
        </span>
      ) : (
        <span
          data-testid="chat-author"
          title={kind === "human" ? "A person, from the WebUI" : "An agent"}
          className={cn(
            "mr-1.5 inline-block max-w-full truncate rounded-md px-1.5 align-top font-mono text-[11px] leading-5 font-medium ring-1 ring-inset",
            AUTHOR_CHIP[kind],
          )}
        >
          {message.author}
        </span>
      )}
      <time dateTime={message.ts} title={time.full} className="mr-1.5 text-[11px] text-slate-500 tabular-nums dark:text-slate-400">
        {time.short}
      </time>
      {/* Plain text: React escapes it, and pre-wrap keeps the author's line breaks. */}
      <span data-testid="chat-text" className="whitespace-pre-wrap text-slate-800 dark:text-slate-200">
        {mentionParts(message.text, mentionNames).map((part, i) =>
          part.mention ? (
            <span key={i} data-mention="" className="rounded bg-indigo-50 px-0.5 font-medium text-indigo-700 dark:bg-indigo-950/40 dark:text-indigo-300">
              {part.text}
            </span>
          ) : (
            part.text
          ),
        )}
      </span>
    </li>
  );
}

function TimelineSkeleton() {
  return (
    <SkeletonRows label="Loading messages…" count={3} lines={(row) => ["h-3.5 w-24", row === 1 ? "h-3 w-2/3" : "h-3 w-full"]} />
  );
}
