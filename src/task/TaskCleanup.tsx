import { useMutation, useQuery } from "convex/react";
import { useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { Button } from "../components/ui/Button";
import { InlineError } from "../components/ui/Field";
import { useSave } from "../lib/useSave";
import { canWrite, isAdminRole, useRole } from "../shell/role";

type Props = {
  task: { _id: Id<"tasks">; title: string; createdBy: string; archivedAt?: number };
  /** After a delete: the drawer closes (the task is gone). */
  onDeleted: () => void;
};

/**
 * Archive, restore and delete for one task, in its drawer. Archiving takes
 * it off the board (the board's Archived filter finds it) and stops its
 * runs; deleting, for its creator or an owner or admin, removes it for
 * everyone after a second click. Viewers see only the archived note.
 */
export function TaskCleanup({ task, onDeleted }: Props) {
  const role = useRole();
  const me = useQuery(api.users.me, {});
  const archive = useMutation(api.tasks.archive);
  const remove = useMutation(api.tasks.remove);
  const [confirming, setConfirming] = useState(false);
  const { saving, failure, save } = useSave();
  const archived = task.archivedAt !== undefined;
  const writable = canWrite(role);
  const mayDelete = writable && (isAdminRole(role) || (me != null && task.createdBy === `member:${me._id}`));

  return (
    <section aria-label="Archive or delete" className="flex flex-col gap-2">
      {archived && (
        <p data-testid="archived-note" className="rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200 ring-inset dark:bg-amber-950/40 dark:text-amber-100 dark:ring-amber-800">
          This task is archived: it is off the board (the board's <strong>Archived</strong> filter finds it) and no agent works on it.
        </p>
      )}
      {writable && (
        <div className="flex flex-wrap items-center gap-2">
          <Button variant="secondary" disabled={saving} onClick={() => save(archive({ taskId: task._id, archived: !archived }))} className="px-2.5 py-1 text-xs">
            {archived ? "Restore to the board" : "Archive task"}
          </Button>
          {mayDelete &&
            (confirming ? (
              <span role="group" aria-label="Confirm delete" className="flex flex-wrap items-center gap-2 text-xs">
                <span className="text-slate-700 dark:text-slate-200">Delete “{task.title}” for everyone? Its runs stop.</span>
                <Button
                  disabled={saving}
                  onClick={() => {
                    // The drawer closes as the delete goes out: once the task is gone its queries would fail under it.
                    // The button is offered only to those the server allows, so a refusal here is a race, reported in the console.
                    remove({ taskId: task._id }).catch((error: unknown) => console.warn("Deleting the task failed", error));
                    onDeleted();
                  }}
                  className="bg-rose-700 px-2.5 py-1 text-xs hover:bg-rose-600 disabled:bg-rose-300"
                >
                  Delete task
                </Button>
                <Button variant="ghost" onClick={() => setConfirming(false)} className="px-2.5 py-1 text-xs">
                  Cancel
                </Button>
              </span>
            ) : (
              <Button variant="ghost" onClick={() => setConfirming(true)} className="px-2.5 py-1 text-xs text-rose-700 hover:text-rose-800 dark:text-rose-300 dark:hover:text-rose-200">
                Delete…
              </Button>
            ))}
        </div>
      )}
      {failure && <InlineError>{failure}</InlineError>}
    </section>
  );
}
