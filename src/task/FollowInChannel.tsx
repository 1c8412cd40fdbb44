import { useMutation, useQuery } from "convex/react";
import { useId } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ChannelSummary } from "../channels/types";
import { InlineError, Select } from "../components/ui/Field";
import { useSave } from "../lib/useSave";
import { canWrite, useRole } from "../shell/role";

/** The select's value for "followed in no channel". */
const NONE = "";

/**
 * What the select offers: no channel, then the live channels the caller can
 * read, by name. A task followed in a channel the list lacks (private and
 * not theirs, or archived since) keeps it as a last, disabled entry, so the
 * select never shows a follow that is not there.
 */
export function followOptions(channels: readonly ChannelSummary[], current: Id<"channels"> | undefined): Array<{ value: string; label: string }> {
  const live = channels.filter((channel) => channel.kind === "channel" && !channel.archived).sort((a, b) => a.title.localeCompare(b.title));
  const options = [{ value: NONE, label: "No channel" }, ...live.map((channel) => ({ value: channel._id as string, label: `#${channel.title}` }))];
  if (current !== undefined && !live.some((channel) => channel._id === current)) {
    const known = channels.find((channel) => channel._id === current);
    options.push({ value: current, label: known === undefined ? "A private channel" : `#${known.title} (archived)` });
  }
  return options;
}

type Props = { task: { _id: Id<"tasks">; departmentId: Id<"departments">; channelId?: Id<"channels"> } };

/**
 * Follow in channel, in the task drawer: the task's status lines and its
 * delegations' updates are posted in the chosen channel too, and work
 * delegated from it later is followed there as well. Members and admins
 * choose among the channels they can read; viewers are not offered it.
 */
export function FollowInChannel({ task }: Props) {
  const id = useId();
  const writable = canWrite(useRole());
  const channels = useQuery(api.channels.list, writable ? { departmentId: task.departmentId } : "skip");
  const setChannel = useMutation(api.tasks.setChannel);
  const { saving, failure, save } = useSave();
  if (!writable || channels === undefined) return null;
  const options = followOptions(channels, task.channelId);
  // The server refuses moving a follow the caller cannot read; the select says so by not moving.
  const locked = task.channelId !== undefined && !channels.some((channel) => channel._id === task.channelId);

  return (
    <section aria-label="Follow in channel" className="grid grid-cols-[6.5rem_minmax(0,1fr)] items-start gap-x-3 text-sm">
      <label htmlFor={id} className="pt-1.5 text-slate-500 dark:text-slate-400">
        Follow in
      </label>
      <div className="flex min-w-0 flex-col gap-1">
        <Select
          id={id}
          value={task.channelId ?? NONE}
          options={options}
          disabled={saving || locked}
          aria-describedby={`${id}-hint`}
          onValueChange={(value) => save(setChannel({ taskId: task._id, channelId: value === NONE ? null : (value as Id<"channels">) }))}
          className="py-1.5"
        />
        <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
          {locked ? "Followed in a private channel you are not in." : "Status changes and delegation updates are posted there too."}
        </p>
        {failure && <InlineError>{failure}</InlineError>}
      </div>
    </section>
  );
}
