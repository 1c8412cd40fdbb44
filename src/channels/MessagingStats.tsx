import { useQuery } from "convex/react";
import { useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Skeleton } from "../components/ui/Skeleton";

const DAY_MS = 86_400_000;
const WINDOW_DAYS = 14;

function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/**
 * The department's messaging at a glance: posted and read per day over two
 * weeks, who has what unread, and the median time from arrival to read.
 */
export function MessagingStats({ departmentId }: { departmentId: Id<"departments"> }) {
  // The window is fixed when the page opens: a query may not read the clock, so it is named here.
  const [sinceDay] = useState(() => Math.floor(Date.now() / DAY_MS) * DAY_MS - (WINDOW_DAYS - 1) * DAY_MS);
  const stats = useQuery(api.inbox.stats, { departmentId, sinceDay, days: WINDOW_DAYS });
  if (stats === undefined) return <Skeleton className="h-48" />;
  const peak = Math.max(1, ...stats.perDay.map((d) => Math.max(d.posted, d.read)));
  return (
    <section data-testid="messaging-stats" aria-label="Messaging figures" className="flex flex-col gap-4 text-sm">
      <div className="flex flex-wrap gap-6">
        <Figure label="Posted (14 days)" value={String(stats.perDay.reduce((s, d) => s + d.posted, 0))} />
        <Figure label="Read (14 days)" value={String(stats.perDay.reduce((s, d) => s + d.read, 0))} />
        <Figure label="Median time to read" value={stats.medianTimeToReadMs === null ? "—" : formatDuration(stats.medianTimeToReadMs)} />
      </div>
      <figure>
        <figcaption className="mb-2 text-xs text-slate-500">Per day: posted (indigo) and read (green)</figcaption>
        <ol className="flex h-32 items-end gap-1" aria-label="Messages per day">
          {stats.perDay.map((d) => (
            <li key={d.day} className="flex h-full flex-1 items-end gap-px" title={`${new Date(d.day).toISOString().slice(0, 10)}: ${d.posted} posted, ${d.read} read`}>
              <span className="flex-1 rounded-t bg-indigo-500" style={{ height: `${(d.posted / peak) * 100}%` }} />
              <span className="flex-1 rounded-t bg-emerald-500" style={{ height: `${(d.read / peak) * 100}%` }} />
            </li>
          ))}
        </ol>
      </figure>
      <div>
        <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">Unread by recipient</h3>
        {stats.unreadByRecipient.length === 0 ? (
          <p className="text-xs text-slate-500">Everyone is caught up.</p>
        ) : (
          <table className="w-full text-left text-sm">
            <tbody>
              {stats.unreadByRecipient.map((r) => (
                <tr key={r.key} className="border-t border-slate-100">
                  <td className="py-1">{r.name}</td>
                  <td className="py-1 text-right tabular-nums">{r.unread}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {stats.partial && <p className="text-xs text-amber-700">Busy window: the figures count the first 5,000 rows of each kind.</p>}
    </section>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <p className="text-xs text-slate-500">{label}</p>
      <p className="text-lg font-semibold text-slate-900 tabular-nums">{value}</p>
    </div>
  );
}
