import { useQuery } from "convex/react";
import { useState, type ReactNode } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Skeleton } from "../components/ui/Skeleton";

const DAY_MS = 86_400_000;
export const WINDOW_DAYS = 14;
/** How many of the latest runs the injection chart shows. */
export const INJECTION_RUNS = 30;

const POSTED = "#6366f1";
const READ = "#10b981";
const UNREAD = "#f59e0b";
const TOKENS = "#0ea5e9";
/** Until the container measures itself (and in tests, where nothing has a size). */
const INITIAL_SIZE = { width: 640, height: 220 };

export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

function dayLabel(day: number): string {
  return new Date(day).toISOString().slice(5, 10);
}

/**
 * The department's messaging figures (`/d/:slug/figures`): messages posted
 * and read per day over two weeks, unread by recipient, the median time from
 * arrival to read, and the tokens the messaging injection used per run.
 */
export function MessagingStats({ departmentId }: { departmentId: Id<"departments"> }) {
  // The window is fixed when the page opens: a query may not read the clock, so it is named here.
  const [sinceDay] = useState(() => Math.floor(Date.now() / DAY_MS) * DAY_MS - (WINDOW_DAYS - 1) * DAY_MS);
  const stats = useQuery(api.inbox.stats, { departmentId, sinceDay, days: WINDOW_DAYS });
  const runs = useQuery(api.runs.injectionUsage, { departmentId, limit: INJECTION_RUNS });
  if (stats === undefined || runs === undefined) return <Skeleton className="h-48" />;
  const perDay = stats.perDay.map((d) => ({ ...d, label: dayLabel(d.day) }));
  // Oldest first, left to right, as the per-day chart reads.
  const perRun = [...runs].reverse().map((r, i) => ({ ...r, label: `${r.agentName} #${i + 1}` }));
  const injected = runs.reduce((sum, r) => sum + r.injectionTokens, 0);
  return (
    <section data-testid="messaging-stats" aria-label="Messaging figures" className="flex flex-col gap-6 text-sm">
      <div className="flex flex-wrap gap-6">
        <Figure label={`Posted (${WINDOW_DAYS} days)`} value={String(stats.perDay.reduce((s, d) => s + d.posted, 0))} />
        <Figure label={`Read (${WINDOW_DAYS} days)`} value={String(stats.perDay.reduce((s, d) => s + d.read, 0))} />
        <Figure
          label="Median time to read"
          value={stats.medianTimeToReadMs === null ? "—" : formatDuration(stats.medianTimeToReadMs)}
          testId="median-time-to-read"
        />
        <Figure label={`Injected tokens (last ${runs.length} runs)`} value={injected.toLocaleString("en-US")} />
      </div>

      <Chart title="Messages per day" testId="chart-per-day">
        <BarChart data={perDay} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={{ fontSize: 11 }} />
          <YAxis allowDecimals={false} tick={{ fontSize: 11 }} width={32} />
          <Tooltip />
          <Legend />
          <Bar dataKey="posted" name="Posted" fill={POSTED} isAnimationActive={false} />
          <Bar dataKey="read" name="Read" fill={READ} isAnimationActive={false} />
        </BarChart>
      </Chart>

      <Chart title="Unread by recipient" testId="chart-unread" empty={stats.unreadByRecipient.length === 0 ? "Everyone is caught up." : null}>
        <BarChart data={stats.unreadByRecipient} layout="vertical" margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11 }} />
          <YAxis type="category" dataKey="name" width={120} tick={{ fontSize: 11 }} />
          <Tooltip />
          <Bar dataKey="unread" name="Unread" fill={UNREAD} isAnimationActive={false} />
        </BarChart>
      </Chart>

      <Chart title={`Injection tokens per run (last ${INJECTION_RUNS})`} testId="chart-injection" empty={runs.length === 0 ? "No agent runs yet." : null}>
        <BarChart data={perRun} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" tick={{ fontSize: 10 }} interval="preserveStartEnd" />
          <YAxis allowDecimals={false} tick={{ fontSize: 11 }} width={48} />
          <Tooltip />
          <Bar dataKey="injectionTokens" name="Tokens injected" fill={TOKENS} isAnimationActive={false} />
        </BarChart>
      </Chart>

      {stats.partial && <p className="text-xs text-amber-700 dark:text-amber-300">Busy window: the figures count the first 5,000 rows of each kind.</p>}
    </section>
  );
}

function Chart({ title, testId, empty = null, children }: { title: string; testId: string; empty?: string | null; children: ReactNode }) {
  return (
    <figure data-testid={testId} className="flex flex-col gap-2">
      <figcaption className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">{title}</figcaption>
      {empty !== null ? (
        <p className="text-xs text-slate-500 dark:text-slate-400">{empty}</p>
      ) : (
        <div className="h-56 w-full">
          <ResponsiveContainer width="100%" height="100%" initialDimension={INITIAL_SIZE}>
            {children as React.ReactElement}
          </ResponsiveContainer>
        </div>
      )}
    </figure>
  );
}

function Figure({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div data-testid={testId}>
      <p className="text-xs text-slate-500 dark:text-slate-400">{label}</p>
      <p className="text-lg font-semibold text-slate-900 tabular-nums dark:text-slate-100">{value}</p>
    </div>
  );
}
