// A channel's details from its header: the topic and the members, changed there by its creator and the admins.
import { useMutation, useQuery } from "convex/react";
import type { FunctionReturnType } from "convex/server";
import { useId, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Badge } from "../components/ui/Badge";
import { Button } from "../components/ui/Button";
import { Field, InlineError, onSubmitted, Select, TextInput } from "../components/ui/Field";
import { Dialog, ModalHeader } from "../components/ui/Modal";
import { userMessage } from "../lib/errors";
import { useDepartment } from "../shell/workspace";
import { addableCandidates, changeAnnouncement, type ChannelChange } from "./channelAdmin";

type ChannelCard = FunctionReturnType<typeof api.channels.get>;

/** The header's "Members" button and the details dialog it opens (channels only: a DM's members are its title). */
export function ChannelDetailsButton({ channel, title }: { channel: ChannelCard; title: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="secondary" data-testid="channel-details-button" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Members <span className="text-slate-500 tabular-nums dark:text-slate-400">{channel.members.length}</span>
      </Button>
      {open && <ChannelDetails channel={channel} title={title} onClose={() => setOpen(false)} />}
    </>
  );
}

type Props = { channel: ChannelCard; title: string; onClose: () => void };

/**
 * The topic and the member list. Whoever may manage the channel (its
 * creator, the admins) edits the topic and adds or removes people and
 * agents; everyone else reads them. Each change is announced once the
 * server has it; a refusal shows its reason.
 */
export function ChannelDetails({ channel, title, onClose }: Props) {
  const headingId = useId();
  const [announcement, setAnnouncement] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const removeMember = useMutation(api.channels.removeMember);

  /** Runs one change; the dialog says what happened, or why not. */
  const change = (work: Promise<unknown>, done: ChannelChange) => {
    setFailure(null);
    setAnnouncement(null);
    setBusy(true);
    work.then(
      () => {
        setBusy(false);
        setAnnouncement(changeAnnouncement(title, done));
      },
      (error: unknown) => {
        setBusy(false);
        setFailure(userMessage(error));
      },
    );
  };

  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      <ModalHeader headingId={headingId} title={`${title} details`} onClose={onClose} />
      <div data-testid="channel-details" className="flex min-h-0 flex-1 flex-col gap-5 overflow-y-auto px-5 py-4">
        <p className="text-xs text-slate-600 dark:text-slate-300">
          {channel.visibility === "private"
            ? `${title} is private: only its members read it.`
            : `Everyone in the department reads ${title}; its members follow it, so its posts reach their inbox.`}
        </p>
        {channel.canManage ? (
          <TopicForm key={channel.topic ?? ""} channelId={channel._id} topic={channel.topic ?? ""} busy={busy} onChange={change} />
        ) : (
          <section className="flex flex-col gap-1">
            <h3 className="text-sm font-semibold text-slate-800 dark:text-slate-200">Topic</h3>
            <p data-testid="channel-topic" className="text-sm text-slate-700 dark:text-slate-300">
              {channel.topic ?? <span className="text-slate-500 dark:text-slate-400">No topic.</span>}
            </p>
          </section>
        )}
        <section aria-labelledby={`${headingId}-members`} className="flex flex-col gap-2">
          <h3 id={`${headingId}-members`} className="text-sm font-semibold text-slate-800 dark:text-slate-200">
            Members ({channel.members.length})
          </h3>
          <ul data-testid="channel-members" className="flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
            {channel.members.map((m) => (
              <li key={m.key} data-testid="channel-member" className="flex items-center gap-2 py-1.5 text-sm text-slate-800 dark:text-slate-200">
                <span className="min-w-0 flex-1 truncate">{m.name}</span>
                <Badge>{m.kind === "agent" ? "agent" : "person"}</Badge>
                {channel.canManage && (
                  <Button
                    variant="ghost"
                    className="px-2 py-1 text-xs"
                    disabled={busy}
                    aria-label={`Remove ${m.name} from ${title}`}
                    onClick={() => change(removeMember({ channelId: channel._id, key: m.key }), { kind: "removed", name: m.name })}
                  >
                    Remove
                  </Button>
                )}
              </li>
            ))}
          </ul>
        </section>
        {channel.canManage ? (
          <AddMember channel={channel} busy={busy} onChange={change} />
        ) : (
          <p data-testid="channel-manage-note" className="text-xs text-slate-500 dark:text-slate-400">
            Only {title}’s creator and the department’s admins change its topic and members.
          </p>
        )}
        {failure && <InlineError>{failure}</InlineError>}
        <p role="status" aria-live="polite" data-testid="channel-details-status" className="min-h-5 text-sm text-emerald-700 dark:text-emerald-300">
          {announcement}
        </p>
      </div>
    </Dialog>
  );
}

type ChangeProps = { busy: boolean; onChange: (work: Promise<unknown>, done: ChannelChange) => void };

function TopicForm({ channelId, topic, busy, onChange }: ChangeProps & { channelId: Id<"channels">; topic: string }) {
  const id = useId();
  const setTopic = useMutation(api.channels.setTopic);
  const [draft, setDraft] = useState(topic);
  return (
    <form className="flex flex-col gap-2" onSubmit={onSubmitted(() => onChange(setTopic({ channelId, topic: draft }), { kind: "topic", topic: draft }))}>
      <Field label="Topic" htmlFor={`${id}-topic`} hint="What the channel is for; empty clears it.">
        <TextInput id={`${id}-topic`} value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="No topic" />
      </Field>
      <div className="flex justify-end">
        <Button type="submit" variant="secondary" disabled={busy || draft.trim() === topic.trim()}>
          Save topic
        </Button>
      </div>
    </form>
  );
}

function AddMember({ channel, busy, onChange }: ChangeProps & { channel: ChannelCard }) {
  const id = useId();
  const { _id: departmentId } = useDepartment();
  const people = useQuery(api.members.list, { departmentId });
  const agents = useQuery(api.agents.list, { departmentId });
  const addMember = useMutation(api.channels.addMember);
  const candidates = addableCandidates(people ?? [], agents ?? [], channel.members.map((m) => m.key));
  const [picked, setPicked] = useState("");
  const chosen = candidates.find((c) => c.key === picked);
  const options = [
    { value: "", label: people === undefined || agents === undefined ? "Loading…" : candidates.length === 0 ? "Everyone is a member" : "Pick a person or an agent" },
    ...candidates.map((c) => ({ value: c.key, label: `${c.name} (${c.kind})` })),
  ];
  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={onSubmitted(() => {
        if (chosen === undefined) return;
        onChange(addMember({ channelId: channel._id, key: chosen.key }), { kind: "added", name: chosen.name });
        setPicked("");
      })}
    >
      <Field label="Add a member" htmlFor={`${id}-add`}>
        <Select id={`${id}-add`} value={picked} options={options} onValueChange={setPicked} />
      </Field>
      <div className="flex justify-end">
        <Button type="submit" variant="secondary" disabled={busy || chosen === undefined}>
          Add
        </Button>
      </div>
    </form>
  );
}
