import type { Id } from "../../convex/_generated/dataModel";
import { initials } from "../board/initials";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Avatar } from "../components/ui/Avatar";
import { useBoardPresence } from "./useBoardPresence";

/** How often this tab says it is still here (ms); it drops out 2.5 intervals after the last. */
const HEARTBEAT_MS = 10_000;
/** Avatars shown before "+N". */
export const MAX_FACES = 5;

export type PresentPerson = { userId: string; name: string; online: boolean };

/**
 * Who is viewing the board now, as pure props: online people only, you first
 * (the list comes that way), each an avatar with their name as its tooltip.
 */
export function PresenceFaces({ people, meId }: { people: readonly PresentPerson[]; meId: string }) {
  const online = people.filter((person) => person.online);
  if (online.length === 0) return null;
  const shown = online.slice(0, MAX_FACES);
  const more = online.length - shown.length;
  const names = online.map((person) => (person.userId === meId ? `${person.name} (you)` : person.name));
  return (
    <div data-testid="presence" aria-label={`Viewing now: ${names.join(", ")}`} role="group" className="flex shrink-0 items-center">
      <div className="flex -space-x-1.5">
        {shown.map((person) => (
          <Avatar
            key={person.userId}
            initials={initials(person.name)}
            label={person.userId === meId ? `${person.name} (you)` : person.name}
            tone="member"
            className="size-7 text-[10px] ring-white dark:ring-slate-900"
          />
        ))}
      </div>
      {more > 0 && (
        <span className="ml-1.5 text-xs text-slate-500 tabular-nums dark:text-slate-400" title={names.slice(MAX_FACES).join(", ")}>
          +{more}
        </span>
      )}
    </div>
  );
}

function LivePresence({ departmentId, meId }: { departmentId: Id<"departments">; meId: Id<"users"> }) {
  const people = useBoardPresence(departmentId, HEARTBEAT_MS) ?? [];
  // You first, then as the room lists them (online first).
  const ordered = [...people.filter((p) => p.userId === meId), ...people.filter((p) => p.userId !== meId)];
  return <PresenceFaces people={ordered} meId={meId} />;
}

/** The header's "who is here": joins the department's room while mounted. A failure hides it, nothing more. */
export function PresenceAvatars({ departmentId, meId }: { departmentId: Id<"departments">; meId: Id<"users"> }) {
  return (
    <ErrorBoundary key={departmentId} fallback={() => null}>
      <LivePresence departmentId={departmentId} meId={meId} />
    </ErrorBoundary>
  );
}
