import { useQuery } from "convex/react";
import { useState, type FormEvent, type ReactNode } from "react";
import { api } from "../../convex/_generated/api";
import type { Actor } from "../../convex/validators";
import { useSave } from "../lib/useSave";
import { isAdminRole, useRole } from "../shell/role";
import { Button } from "./ui/Button";
import { InlineError } from "./ui/Field";

type Props = {
  author: Actor;
  /** The message's text as stored (what the edit box starts from). */
  text: string;
  editedAt?: number;
  deletedAt?: number;
  /** Saves the new text (the server checks who may). */
  onEdit: (text: string) => Promise<unknown>;
  onDelete: () => Promise<unknown>;
  /** The body as the conversation shows it. */
  children: ReactNode;
};

/**
 * A message's body with what its reader may do to it: its author edits it
 * (then it says "edited"), its author or an owner or admin deletes it (after
 * a second click), and a deleted message says so instead of its text. The
 * server refuses anyone else; this only offers what it will allow.
 */
export function ChangeableMessage({ author, text, editedAt, deletedAt, onEdit, onDelete, children }: Props) {
  const me = useQuery(api.users.me, {});
  const role = useRole();
  const [mode, setMode] = useState<"read" | "edit" | "confirm">("read");
  const [draft, setDraft] = useState(text);
  const { saving, failure, save } = useSave();

  if (deletedAt !== undefined) {
    return (
      <p data-testid="message-deleted" className="text-sm text-slate-500 italic dark:text-slate-400">
        This message was deleted.
      </p>
    );
  }

  const mine = author.kind === "member" && me != null && author.userId === me._id;
  const mayEdit = mine && role !== "viewer";
  const mayDelete = (mine && role !== "viewer") || isAdminRole(role);

  function commit() {
    const next = draft.trim();
    if (next === "" || next === text) {
      setMode("read");
      return;
    }
    save(onEdit(next).then(() => setMode("read")));
  }

  if (mode === "edit") {
    return (
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          commit();
        }}
        className="mt-1 flex flex-col gap-2">
        <textarea
          aria-label="Edit message"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setMode("read");
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              commit();
            }
          }}
          rows={Math.min(8, Math.max(2, draft.split("\n").length))}
          autoFocus
          className="w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 focus:border-indigo-500 focus:outline-none dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
        />
        {failure && <InlineError>{failure}</InlineError>}
        <div className="flex gap-2">
          <Button type="submit" disabled={saving} className="px-2.5 py-1 text-xs">
            Save
          </Button>
          <Button variant="secondary" onClick={() => setMode("read")} className="px-2.5 py-1 text-xs">
            Cancel
          </Button>
        </div>
      </form>
    );
  }

  return (
    <div className="group/message">
      {children}
      <div className="flex flex-wrap items-center gap-x-2 text-xs">
        {editedAt !== undefined && <span className="text-slate-500 dark:text-slate-400">(edited)</span>}
        {mode === "confirm" ? (
          <span role="group" aria-label="Confirm delete" className="flex items-center gap-2">
            <span className="text-slate-700 dark:text-slate-200">Delete this message for everyone?</span>
            <button
              type="button"
              disabled={saving}
              onClick={() => save(onDelete())}
              className="font-semibold text-rose-700 hover:underline dark:text-rose-300"
            >
              Delete
            </button>
            <button type="button" onClick={() => setMode("read")} className="text-slate-600 hover:underline dark:text-slate-300">
              Cancel
            </button>
          </span>
        ) : (
          (mayEdit || mayDelete) && (
            // Shown on hover or focus where there is a pointer; always on touch screens.
            <span className="flex gap-2 [@media(hover:hover)]:opacity-0 [@media(hover:hover)]:group-hover/message:opacity-100 [@media(hover:hover)]:focus-within:opacity-100">
              {mayEdit && (
                <button
                  type="button"
                  onClick={() => {
                    setDraft(text);
                    setMode("edit");
                  }}
                  className="font-medium text-slate-600 hover:text-indigo-700 hover:underline dark:text-slate-300 dark:hover:text-indigo-300"
                >
                  Edit
                </button>
              )}
              {mayDelete && (
                <button type="button" onClick={() => setMode("confirm")} className="font-medium text-slate-600 hover:text-rose-700 hover:underline dark:text-slate-300 dark:hover:text-rose-300">
                  Delete
                </button>
              )}
            </span>
          )
        )}
      </div>
      {failure && <InlineError>{failure}</InlineError>}
    </div>
  );
}
