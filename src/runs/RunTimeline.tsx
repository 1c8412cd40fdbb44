import { useMemo } from "react";
import type { RunEvent } from "../../convex/lib/runEvents";
import { replayRun, type TimelineItem } from "../../convex/lib/runTimeline";
import { cn } from "../lib/cn";
import { formatFullTime } from "../lib/relativeTime";
import { itemHeading } from "./runViews";

/** A run replayed from its events alone: what was asked, what the agent said and did, how it ended. */
export function RunTimeline({ events }: { events: ReadonlyArray<Pick<RunEvent, "seq" | "timestamp" | "payload">> }) {
  const timeline = useMemo(() => replayRun(events), [events]);
  if (timeline.items.length === 0) return <p className="text-sm text-slate-500 dark:text-slate-400">Nothing has happened in this run yet.</p>;
  return (
    <ol aria-label="Run timeline" className="flex flex-col gap-2">
      {timeline.items.map((item) => (
        <li key={item.seq} data-kind={item.kind} className={cn("rounded-lg border px-3 py-2 text-sm", TONE[item.kind])}>
          <div className="flex items-baseline gap-2">
            <p className="flex-1 text-xs font-medium text-slate-700 dark:text-slate-200">{itemHeading(item)}</p>
            <time dateTime={new Date(item.timestamp).toISOString()} className="shrink-0 text-[11px] text-slate-500 dark:text-slate-400">
              {formatFullTime(item.timestamp)}
            </time>
          </div>
          <ItemBody item={item} />
        </li>
      ))}
    </ol>
  );
}

const TONE: Record<TimelineItem["kind"], string> = {
  user_message: "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900",
  control: "border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-800/60",
  tool_output: "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900",
  slash_command: "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900",
  agent_start: "border-indigo-100 bg-indigo-50/40 dark:border-indigo-800 dark:bg-indigo-950/40",
  message: "border-indigo-100 bg-white dark:border-indigo-800 dark:bg-slate-900",
  tool: "border-amber-100 bg-amber-50/40 dark:border-amber-800 dark:bg-amber-950/40",
  approval: "border-amber-200 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40",
  question: "border-amber-200 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40",
  plan: "border-amber-200 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40",
  end: "border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-800/60",
};

function Text({ children }: { children: string }) {
  return <p className="mt-1 whitespace-pre-wrap break-words text-slate-700 dark:text-slate-200">{children}</p>;
}

function ItemBody({ item }: { item: TimelineItem }) {
  switch (item.kind) {
    case "user_message":
    case "tool_output":
      return <Text>{item.content}</Text>;
    case "message":
      return item.text === "" ? null : <Text>{item.text}</Text>;
    case "tool":
      return (
        <>
          <code className="mt-1 block break-all text-xs text-slate-600 dark:text-slate-300">{item.args}</code>
          {item.result !== undefined && <Text>{item.result.observation}</Text>}
        </>
      );
    case "slash_command":
      return item.error === undefined ? null : <Text>{item.error}</Text>;
    case "approval":
      return <code className="mt-1 block break-all text-xs text-slate-600 dark:text-slate-300">{item.args}</code>;
    case "question":
      return <Text>{item.question}</Text>;
    case "plan":
      return (
        <ol className="mt-1 list-decimal pl-5 text-slate-700 dark:text-slate-200">
          {item.steps.map((step, index) => (
            <li key={index}>
              {step.title}
              {step.assignee !== undefined && <span className="text-slate-500 dark:text-slate-400"> — {step.assignee}</span>}
            </li>
          ))}
        </ol>
      );
    default:
      return null;
  }
}
