// The slash commands people typed in the department, newest first, a page at a time: who, what, where, and how it went.
import { usePaginatedQuery, useQuery } from "convex/react";
import { useId, useState } from "react";
import { Link } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Badge } from "../components/ui/Badge";
import { Field, Select } from "../components/ui/Field";
import { LoadMore } from "../components/ui/LoadMore";
import { RelativeTime } from "../components/ui/RelativeTime";
import { SkeletonStack } from "../components/ui/Skeleton";
import { cn } from "../lib/cn";
import { useNow } from "../lib/relativeTime";
import { channelsPath, taskPath } from "../shell/addresses";
import { commandOutcome, commandPlace, commandScopeArgs, commandScopeOptions, type CommandScope } from "./commandHistory";

const PAGE = 25;

type Props = { departmentId: Id<"departments">; slug: string };

/**
 * The command records that involved no run (a command that started one is
 * in that run's timeline, on the runs page).
 */
export function CommandHistory({ departmentId, slug }: Props) {
  const id = useId();
  const now = useNow(30_000);
  const [scope, setScope] = useState<CommandScope>("department");
  const channels = useQuery(api.channels.list, { departmentId });
  const { results, status, loadMore } = usePaginatedQuery(api.slashCommands.listCommandEvents, { departmentId, ...commandScopeArgs(scope) }, { initialNumItems: PAGE });
  return (
    <div className="flex flex-col gap-3">
      <Field label="Typed in" htmlFor={`${id}-scope`} className="sm:max-w-xs">
        <Select id={`${id}-scope`} value={scope} options={commandScopeOptions(channels ?? [])} onValueChange={setScope} />
      </Field>
      {status === "LoadingFirstPage" ? (
        <SkeletonStack label="Loading commands…" blocks={["h-10", "h-10"]} />
      ) : results.length === 0 ? (
        <p className="py-6 text-center text-sm text-slate-500 dark:text-slate-400">No commands recorded yet.</p>
      ) : (
        <ol data-testid="command-history" aria-label="Commands, newest first" className="flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
          {results.map((record) => {
            const outcome = commandOutcome(record.payload);
            return (
              <li key={record._id} data-testid="command-row" className="flex flex-wrap items-baseline gap-x-2 gap-y-1 py-2 text-sm">
                <RelativeTime at={record._creationTime} now={now} className="w-24 shrink-0 text-xs text-slate-500 tabular-nums dark:text-slate-400" />
                <span className="min-w-0 flex-1 text-slate-800 max-sm:order-last max-sm:basis-full dark:text-slate-200">
                  <span className="font-semibold">{record.by}</span> <code className="rounded bg-slate-100 px-1 text-xs break-all dark:bg-slate-800">{record.payload.invokedAs}</code> in{" "}
                  {record.taskId !== undefined && record.taskTitle !== undefined ? (
                    <Link to={taskPath(slug, record.taskId)} className="text-indigo-700 hover:underline dark:text-indigo-300">
                      {commandPlace(record)}
                    </Link>
                  ) : record.channelId !== undefined && record.channelName !== undefined ? (
                    <Link to={channelsPath(slug, record.channelId)} className="text-indigo-700 hover:underline dark:text-indigo-300">
                      {commandPlace(record)}
                    </Link>
                  ) : (
                    commandPlace(record)
                  )}
                  {outcome.detail !== undefined && <span className="block text-xs text-rose-700 dark:text-rose-300">{outcome.detail}</span>}
                </span>
                <Badge className={cn("ml-auto", outcome.className)}>{outcome.label}</Badge>
              </li>
            );
          })}
        </ol>
      )}
      <LoadMore status={status} onLoadMore={() => loadMore(PAGE)} label="Older commands" variant="secondary" className="w-full sm:w-auto" rowClassName="flex justify-center" />
    </div>
  );
}
