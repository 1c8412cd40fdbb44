// The department's event log for admins: newest first, a page at a time, narrowed by type, actor, channel and correlation id.
import { usePaginatedQuery, useQuery } from "convex/react";
import { useId, useState } from "react";
import { Link } from "react-router";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { EventType } from "../../convex/validators";
import { Badge } from "../components/ui/Badge";
import { Field, Select, TextInput } from "../components/ui/Field";
import { LoadMore } from "../components/ui/LoadMore";
import { RelativeTime } from "../components/ui/RelativeTime";
import { SkeletonStack } from "../components/ui/Skeleton";
import { useNow } from "../lib/relativeTime";
import { tracePath } from "../shell/addresses";
import { actorLabel, actorOptions, channelOptions, EVENT_TYPE_OPTIONS, eventPlace, eventSummary } from "./eventLog";

const PAGE = 25;

/** The longest correlation id the log takes (events.list). */
const MAX_CORRELATION_CHARS = 200;

/**
 * The filters and the list; the server refuses anyone but an admin, so the
 * page shows it only to them. `correlationId` starts the correlation filter
 * (a trace's "These events in the event log"); each event that has one links
 * to its trace.
 */
export function EventLog({ departmentId, slug, correlationId = "" }: { departmentId: Id<"departments">; slug: string; correlationId?: string }) {
  const id = useId();
  const now = useNow(30_000);
  const [type, setType] = useState<EventType | "">("");
  const [actor, setActor] = useState("");
  const [channel, setChannel] = useState("");
  const [correlation, setCorrelation] = useState(correlationId);
  const wanted = correlation.trim();
  const correlationTooLong = wanted.length > MAX_CORRELATION_CHARS;
  const people = useQuery(api.members.list, { departmentId });
  const agents = useQuery(api.agents.list, { departmentId });
  const channels = useQuery(api.channels.list, { departmentId });
  const { results, status, loadMore } = usePaginatedQuery(
    api.events.list,
    {
      departmentId,
      ...(type === "" ? {} : { type }),
      ...(actor === "" ? {} : { actor }),
      ...(channel === "" ? {} : { channelId: channel as Id<"channels"> }),
      ...(wanted === "" || correlationTooLong ? {} : { correlationId: wanted }),
    },
    { initialNumItems: PAGE },
  );
  const filtered = type !== "" || actor !== "" || channel !== "" || wanted !== "";
  return (
    <div className="flex flex-col gap-3">
      <div data-testid="event-filters" className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4">
        <Field label="Type" htmlFor={`${id}-type`}>
          <Select id={`${id}-type`} value={type} options={EVENT_TYPE_OPTIONS} onValueChange={setType} />
        </Field>
        <Field label="Who" htmlFor={`${id}-actor`}>
          <Select id={`${id}-actor`} value={actor} options={actorOptions(people ?? [], agents ?? [])} onValueChange={setActor} />
        </Field>
        <Field label="Channel" htmlFor={`${id}-channel`}>
          <Select id={`${id}-channel`} value={channel} options={channelOptions(channels ?? [])} onValueChange={setChannel} />
        </Field>
        <Field label="Correlation id" htmlFor={`${id}-correlation`} error={correlationTooLong ? `At most ${MAX_CORRELATION_CHARS} characters.` : null}>
          {(control) => <TextInput {...control} value={correlation} placeholder="a2a:…" spellCheck={false} autoComplete="off" onChange={(event) => setCorrelation(event.target.value)} />}
        </Field>
      </div>
      {status === "LoadingFirstPage" ? (
        <SkeletonStack label="Loading events…" blocks={["h-10", "h-10", "h-10"]} />
      ) : results.length === 0 ? (
        <p className="py-6 text-center text-sm text-slate-500 dark:text-slate-400">{filtered ? "No events match these filters." : "Nothing has happened yet."}</p>
      ) : (
        <ol data-testid="event-log" aria-label="Events, newest first" className="flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
          {results.map((event) => (
            <li key={event._id} data-testid="event-row" data-event-type={event.type} className="flex flex-wrap items-baseline gap-x-2 gap-y-1 py-2 text-sm">
              <RelativeTime at={event._creationTime} now={now} className="w-24 shrink-0 text-xs text-slate-500 tabular-nums dark:text-slate-400" />
              <span className="min-w-0 flex-1 text-slate-800 max-sm:order-last max-sm:basis-full dark:text-slate-200">
                <span className="font-semibold">{actorLabel(event.actor)}</span> {eventSummary(event)}
                {eventPlace(event) !== undefined && <span className="text-slate-600 dark:text-slate-300"> in {eventPlace(event)}</span>}
                {event.correlationId !== undefined && (
                  <>
                    {" "}
                    <Link
                      to={tracePath(slug, event.correlationId)}
                      aria-label={`Trace of ${event.correlationId}`}
                      className="font-medium whitespace-nowrap text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
                    >
                      Trace
                    </Link>
                  </>
                )}
              </span>
              <Badge className="ml-auto bg-slate-50 font-mono text-slate-600 ring-slate-500/20 dark:bg-slate-800/60 dark:text-slate-300">{event.type}</Badge>
            </li>
          ))}
        </ol>
      )}
      <LoadMore status={status} onLoadMore={() => loadMore(PAGE)} label="Older events" variant="secondary" className="w-full sm:w-auto" rowClassName="flex justify-center" />
    </div>
  );
}
