// A moment shown as how long ago it was, with the full date and time on hover.
import { formatFullTime, formatRelativeTime } from "../../lib/relativeTime";

/** `at` as "5 min. ago" (at `now`), in a <time> that carries the exact moment. */
export function RelativeTime({ at, now, className }: { at: number; now: number; className?: string }) {
  return (
    <time dateTime={new Date(at).toISOString()} title={formatFullTime(at)} className={className}>
      {formatRelativeTime(at, now)}
    </time>
  );
}
