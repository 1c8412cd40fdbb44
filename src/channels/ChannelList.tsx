import type { Id } from "../../convex/_generated/dataModel";
import { cn } from "../lib/cn";
import { unreadLabel, type ChannelSummary } from "./types";

type Props = {
  channels: ChannelSummary[];
  selected: Id<"channels"> | null;
  onSelect: (id: Id<"channels">) => void;
};

/** Channels, then DMs, each with its unread badge; archived channels last and dimmed. */
export function ChannelList({ channels, selected, onSelect }: Props) {
  const rooms = channels.filter((c) => c.kind === "channel").sort((a, b) => Number(a.archived) - Number(b.archived) || a.name.localeCompare(b.name));
  const dms = channels.filter((c) => c.kind === "dm").sort((a, b) => (b.lastMessageAt ?? 0) - (a.lastMessageAt ?? 0));
  return (
    <nav aria-label="Channels and direct messages" className="flex flex-col gap-4 text-sm">
      <Section title="Channels" items={rooms} selected={selected} onSelect={onSelect} empty="No channels yet." />
      <Section title="Direct messages" items={dms} selected={selected} onSelect={onSelect} empty="No direct messages yet." />
    </nav>
  );
}

function Section({ title, items, selected, onSelect, empty }: Omit<Props, "channels"> & { title: string; items: ChannelSummary[]; empty: string }) {
  return (
    <div>
      <h3 className="px-2 pb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">{title}</h3>
      {items.length === 0 ? (
        <p className="px-2 text-xs text-slate-500 dark:text-slate-400">{empty}</p>
      ) : (
        <ul className="flex flex-col">
          {items.map((c) => {
            const label = c.kind === "dm" ? c.title : `#${c.name}`;
            return (
              <li key={c._id}>
                <button
                  type="button"
                  data-testid="channel-row"
                  aria-current={selected === c._id ? "true" : undefined}
                  title={c.topic ?? label}
                  onClick={() => onSelect(c._id)}
                  className={cn(
                    "flex w-full items-center gap-2 rounded-md px-2 py-1 text-left hover:bg-slate-100 dark:hover:bg-slate-800",
                    selected === c._id && "bg-indigo-50 text-indigo-900 dark:bg-indigo-950/40 dark:text-indigo-300",
                    c.archived && "text-slate-500 dark:text-slate-400",
                    c.unread > 0 && "font-semibold",
                  )}
                >
                  <span className="min-w-0 flex-1 truncate">{label}</span>
                  {c.visibility === "private" && c.kind === "channel" && <span className="text-xs text-slate-500 dark:text-slate-400">private</span>}
                  {c.unread > 0 && (
                    <span data-testid="unread-badge" aria-label={`${c.unread} unread`} className="rounded-full bg-indigo-600 px-1.5 text-xs text-white tabular-nums">
                      {unreadLabel(c.unread)}
                    </span>
                  )}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
