import { useMutation, useQuery } from "convex/react";
import { useId, useState, type FormEvent } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { MemberRole } from "../../convex/validators";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Button } from "../components/ui/Button";
import { Field, InlineError, Select, TextInput } from "../components/ui/Field";
import { Dialog, ModalHeader } from "../components/ui/Modal";
import { Skeleton } from "../components/ui/Skeleton";
import { userMessage } from "../lib/errors";
import { isAdminRole } from "../shell/role";
import { LiveList } from "../components/ui/LiveList";

export const ROLE_OPTIONS: ReadonlyArray<{ value: MemberRole; label: string }> = [
  { value: "owner", label: "Owner" },
  { value: "admin", label: "Admin" },
  { value: "member", label: "Member" },
  { value: "viewer", label: "Viewer" },
];

type Props = { departmentId: Id<"departments">; departmentName: string; myRole: MemberRole; onClose: () => void };

/**
 * The department's people and their roles; owners and admins also invite,
 * change roles and remove people here (only owners touch owners). Every
 * change is the server's to allow: refusals show inline.
 */
export function MembersDialog({ departmentId, departmentName, myRole, onClose }: Props) {
  const headingId = useId();
  const manager = isAdminRole(myRole);
  return (
    <Dialog onClose={onClose} labelledBy={headingId}>
      <ModalHeader headingId={headingId} title={`Members of ${departmentName}`} onClose={onClose} />
      <div data-testid="members-dialog" className="flex min-h-0 flex-1 flex-col gap-6 overflow-y-auto px-5 py-4">
        <ErrorBoundary>
          <MemberList departmentId={departmentId} myRole={myRole} />
        </ErrorBoundary>
        {manager && (
          <ErrorBoundary>
            <Invites departmentId={departmentId} myRole={myRole} />
          </ErrorBoundary>
        )}
      </div>
    </Dialog>
  );
}

function MemberList({ departmentId, myRole }: { departmentId: Id<"departments">; myRole: MemberRole }) {
  const members = useQuery(api.members.list, { departmentId });
  const me = useQuery(api.users.me, {});
  const setRole = useMutation(api.members.setRole);
  const remove = useMutation(api.members.remove);
  const makeResetLink = useMutation(api.passwordResets.create);
  const [error, setError] = useState<string | null>(null);
  const [resetLink, setResetLink] = useState<{ name: string; email: string; url: string } | null>(null);
  const manager = isAdminRole(myRole);

  if (members === undefined) return <Skeleton className="h-24" />;
  const roleOptions = ROLE_OPTIONS.filter((o) => o.value !== "owner" || myRole === "owner");

  async function run(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(userMessage(e));
    }
  }

  return (
    <section className="flex flex-col gap-2">
      <h3 className="text-sm font-semibold text-slate-800 dark:text-slate-200">People</h3>
      {error && <InlineError>{error}</InlineError>}
      <ul className="flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
        {members.map((member) => {
          const editable = manager && (member.role !== "owner" || myRole === "owner");
          // A department keeps an owner: its only one is neither removed nor demoted from here (the server refuses both).
          const onlyOwner = member.role === "owner" && members.filter((m) => m.role === "owner").length === 1;
          const isMe = me?._id === member.userId;
          // Only owners touch owners; your own password is changed in Account.
          const resettable = manager && !isMe && (member.role !== "owner" || myRole === "owner");
          return (
            <li key={member._id} data-testid="member-row" className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
              {/* Wide enough for an email before the buttons wrap under it. */}
              <div className="min-w-0 flex-1 basis-52">
                <p className="text-sm font-medium text-slate-900 dark:text-slate-100">
                  {member.name}
                  {isMe && <span className="text-slate-500 dark:text-slate-400"> (you)</span>}
                </p>
                {member.email && <p className="text-xs break-all text-slate-500 dark:text-slate-400">{member.email}</p>}
              </div>
              {resettable && (
                <Button
                  variant="ghost"
                  aria-label={`Make reset link for ${member.name}`}
                  onClick={() =>
                    void run(async () => {
                      setResetLink(null);
                      const { token, email } = await makeResetLink({ departmentId, memberId: member._id });
                      setResetLink({ name: member.name, email, url: linkWith("reset", token, "/") });
                    })
                  }
                >
                  Make reset link
                </Button>
              )}
              {editable && !onlyOwner ? (
                <>
                  <div className="w-32 shrink-0">
                    <Select
                      aria-label={`Role of ${member.name}`}
                      value={member.role}
                      options={member.role === "owner" ? ROLE_OPTIONS : roleOptions}
                      onValueChange={(role) => void run(() => setRole({ memberId: member._id, role }))}
                    />
                  </div>
                  <Button
                    variant="ghost"
                    onClick={() => {
                      if (window.confirm(`Remove ${member.name} from the department? They lose access at once.`)) {
                        void run(() => remove({ memberId: member._id }));
                      }
                    }}
                  >
                    Remove
                  </Button>
                </>
              ) : (
                <span data-testid="member-role" className="text-xs font-medium text-slate-600 dark:text-slate-300">
                  {ROLE_OPTIONS.find((o) => o.value === member.role)?.label}
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {resetLink && (
        <OneTimeLink
          label={`Reset link for ${resetLink.name}`}
          note={`Send this link to ${resetLink.name} (${resetLink.email}) yourself: Maestro sends no email. It sets a new password once, within 24 hours, and is shown only now; using it signs them out everywhere.`}
          url={resetLink.url}
        />
      )}
    </section>
  );
}

/** The app's address (here, or at `pathname`) with one `?key=token` (an invite or a reset link). */
function linkWith(key: "invite" | "reset", token: string, pathname?: string): string {
  const url = new URL(window.location.href);
  url.hash = "";
  if (pathname !== undefined) url.pathname = pathname;
  url.search = `?${key}=${encodeURIComponent(token)}`;
  return url.toString();
}

/** A link shown once, to copy and pass on. */
function OneTimeLink({ label, note, url }: { label: string; note: string; url: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div data-testid="one-time-link" className="flex flex-col gap-2 rounded-lg bg-indigo-50 p-3 ring-1 ring-indigo-200 ring-inset dark:bg-indigo-950/40 dark:ring-indigo-800">
      <p className="text-xs text-indigo-900 dark:text-indigo-300">{note}</p>
      <div className="flex items-center gap-2">
        <TextInput readOnly aria-label={label} value={url} onFocus={(e) => e.target.select()} />
        <Button
          variant="ghost"
          onClick={() => {
            void navigator.clipboard?.writeText(url).then(() => setCopied(true));
          }}
        >
          {copied ? "Copied" : "Copy"}
        </Button>
      </div>
    </div>
  );
}

function Invites({ departmentId, myRole }: { departmentId: Id<"departments">; myRole: MemberRole }) {
  const invites = useQuery(api.invites.list, { departmentId });
  const create = useMutation(api.invites.create);
  const revoke = useMutation(api.invites.revoke);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<MemberRole>("member");
  const [error, setError] = useState<string | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const emailId = useId();
  const roleId = useId();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    setLink(null);
    try {
      const { token } = await create({ departmentId, email, role });
      setLink(linkWith("invite", token));
      setEmail("");
    } catch (e) {
      setError(userMessage(e));
    }
  }

  return (
    <section className="flex flex-col gap-3 border-t border-slate-100 pt-4 dark:border-slate-800">
      <h3 className="text-sm font-semibold text-slate-800 dark:text-slate-200">Invite someone</h3>
      <form onSubmit={(e) => void submit(e)} className="flex flex-wrap items-end gap-3">
        <Field label="Email" htmlFor={emailId} className="min-w-48 flex-1">
          <TextInput id={emailId} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Role" htmlFor={roleId}>
          <Select id={roleId} value={role} options={ROLE_OPTIONS.filter((o) => o.value !== "owner" || myRole === "owner")} onValueChange={setRole} />
        </Field>
        <Button type="submit">Create invite</Button>
      </form>
      {error && <InlineError>{error}</InlineError>}
      {link && <OneTimeLink label="Invite link" note="Send this link to them. It works once, for 7 days, and is shown only now." url={link} />}
      <h3 className="text-sm font-semibold text-slate-800 dark:text-slate-200">Pending invites</h3>
      <LiveList items={invites} empty="No pending invites." className="flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
        {(invite) => (
          <li key={invite._id} data-testid="invite-row" className="flex items-center gap-3 py-2 text-sm">
            <span className="min-w-0 flex-1 truncate">
              {invite.email} · {ROLE_OPTIONS.find((o) => o.value === invite.role)?.label} · by {invite.createdByName}
            </span>
            <span className="text-xs text-slate-500 dark:text-slate-400">until {new Date(invite.expiresAt).toLocaleDateString()}</span>
            <Button variant="ghost" onClick={() => void revoke({ inviteId: invite._id }).catch((e: unknown) => setError(userMessage(e)))}>
              Revoke
            </Button>
          </li>
        )}
      </LiveList>
    </section>
  );
}
