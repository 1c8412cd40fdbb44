import { useQuery } from "convex/react";
import { useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { PlusIcon } from "../components/ui/icons";
import { Skeleton } from "../components/ui/Skeleton";
import { canWrite, useRole } from "../shell/role";
import { ChannelList } from "./ChannelList";
import { ChannelView } from "./ChannelView";
import { NewChannelDialog } from "./NewChannelDialog";
import { NewDmDialog } from "./NewDmDialog";

type Props = {
  departmentId: Id<"departments">;
  /** Controlled selection (a route can drive it); uncontrolled when omitted. */
  channelId?: Id<"channels"> | null;
  onSelect?: (id: Id<"channels"> | null) => void;
  /** The open thread (a route can drive it, with `onThread`); the view keeps its own when omitted. */
  threadId?: Id<"channelMessages"> | null;
  onThread?: (id: Id<"channelMessages"> | null) => void;
};

/** Channels and DMs: the list with unread badges on the left, the open conversation on the right. */
export function ChannelsView({ departmentId, channelId, onSelect, threadId, onThread }: Props) {
  const channels = useQuery(api.channels.list, { departmentId });
  const me = useQuery(api.users.me, {});
  // Left out of the DM picker: you are in every DM you open.
  const selfKey = me === undefined ? null : `member:${me._id}`;
  const [own, setOwn] = useState<Id<"channels"> | null>(null);
  const selected = channelId !== undefined ? channelId : own;
  const select = onSelect ?? setOwn;
  const [dialog, setDialog] = useState<"channel" | "dm" | null>(null);
  const writable = canWrite(useRole());
  const current = channels?.find((c) => c._id === selected);
  return (
    <div data-testid="channels" className="flex min-h-0 flex-1 flex-col gap-3 lg:flex-row">
      <div className="flex w-full shrink-0 flex-col gap-3 lg:w-56">
        {writable && (
          <div className="flex gap-2">
            <Button variant="secondary" onClick={() => setDialog("channel")}>
              <PlusIcon /> Channel
            </Button>
            <Button variant="secondary" onClick={() => setDialog("dm")}>
              <PlusIcon /> DM
            </Button>
          </div>
        )}
        {channels === undefined ? <Skeleton className="h-24" /> : <ChannelList channels={channels} selected={selected} onSelect={select} />}
      </div>
      <div className="flex min-h-[24rem] min-w-0 flex-1 rounded-xl bg-white ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700">
        {current ? (
          <ChannelView
            key={current._id}
            departmentId={departmentId}
            channelId={current._id}
            title={current.kind === "dm" ? current.title : `#${current.name}`}
            unread={current.unread}
            thread={threadId}
            onThread={onThread}
          />
        ) : selected !== null && channels !== undefined ? (
          <p role="alert" data-testid="channel-not-found" className="m-auto p-6 text-sm text-slate-600 dark:text-slate-300">
            No such channel or DM here: it may be another department&apos;s, private, or gone.
          </p>
        ) : (
          <p className="m-auto p-6 text-sm text-slate-500 dark:text-slate-400">Pick a channel or a direct message.</p>
        )}
      </div>
      {dialog === "channel" && (
        <NewChannelDialog
          departmentId={departmentId}
          onClose={() => setDialog(null)}
          onCreated={(id) => {
            setDialog(null);
            select(id);
          }}
        />
      )}
      {dialog === "dm" && (
        <NewDmDialog
          departmentId={departmentId}
          selfKey={selfKey}
          onClose={() => setDialog(null)}
          onOpened={(id) => {
            setDialog(null);
            select(id);
          }}
        />
      )}
    </div>
  );
}
