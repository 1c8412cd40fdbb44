import { useId, useState, type KeyboardEvent } from "react";
import { Link, useParams } from "react-router";
import type { FunctionReturnType } from "convex/server";
import { useQuery } from "convex/react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { initials } from "../board/initials";
import { optionFor, PRIORITY_OPTIONS, STATUS_OPTIONS } from "../board/options";
import type { Priority, RosterAgent, TaskStatus } from "../board/types";
import { Avatar } from "../components/ui/Avatar";
import { Badge } from "../components/ui/Badge";
import { Button } from "../components/ui/Button";
import { Markdown } from "../components/ui/Markdown";
import { Select, TextArea, TextInput } from "../components/ui/Field";
import { cardCorrelationId } from "../audit/trace";
import { taskPath, tracePath } from "../shell/addresses";
import { canWrite, isAdminRole, useRole } from "../shell/role";
import { AssigneePicker } from "./AssigneePicker";
import { Subtasks } from "./Subtasks";
import { descriptionError, formatTags, parseTags, tagsError, titleError } from "./newTask";
import { useInlineEdit } from "./useInlineEdit";
import { RelativeTime } from "../components/ui/RelativeTime";

export type TaskDetail = FunctionReturnType<typeof api.tasks.get>;
export type Member = FunctionReturnType<typeof api.members.list>[number];

/** Edits the drawer can make; each rejects with the failure. */
export type TaskEdits = {
  update: (changes: { title?: string; description?: string; priority?: Priority; tags?: string[] }) => Promise<unknown>;
  setStatus: (status: TaskStatus) => Promise<unknown>;
  assign: (assigneeSessionKeys: string[]) => Promise<unknown>;
};

/** Escape in an inline editor cancels the edit and keeps the drawer open. */
function editorKeys(event: KeyboardEvent, { commit, cancel }: { commit: () => void; cancel: () => void }, commitOnEnter: boolean) {
  if (event.key === "Escape") {
    event.preventDefault();
    cancel();
  } else if (event.key === "Enter" && (commitOnEnter || event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    commit();
  }
}

/** Who made something, from a `createdBy` key: an agent, a member or Maestro itself. */
export function actorLabel(key: string, agentsByKey: ReadonlyMap<string, RosterAgent>, members: readonly Member[]): string {
  if (key === "system") return "Maestro";
  return agentsByKey.get(key)?.name ?? members.find((member) => member.key === key)?.name ?? "someone who left";
}

type TitleProps = { task: TaskDetail; headingId: string; edits: TaskEdits; onError: (error: unknown) => void };

/** The task's title as the drawer heading; click it to rename. */
export function TaskTitle({ task, headingId, edits, onError }: TitleProps) {
  const edit = useInlineEdit({ value: task.title, validate: titleError, save: (title) => edits.update({ title }), onError });
  const writable = canWrite(useRole());
  if (!writable) {
    return (
      <h2 id={headingId} className="min-w-0 flex-1 text-lg leading-snug font-semibold break-words text-slate-900 dark:text-slate-100">
        {task.title}
      </h2>
    );
  }
  if (!edit.editing) {
    return (
      <h2 id={headingId} className="min-w-0 flex-1 text-lg leading-snug font-semibold break-words text-slate-900 dark:text-slate-100">
        <button
          type="button"
          onClick={edit.start}
          title="Rename"
          className="-mx-1.5 rounded-md px-1.5 text-left hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600 dark:hover:bg-slate-800"
        >
          {task.title}
        </button>
      </h2>
    );
  }
  return (
    <div className="min-w-0 flex-1">
      {/* The heading stays (visually hidden) so the dialog keeps its name while renaming. */}
      <h2 id={headingId} className="sr-only">
        {task.title}
      </h2>
      <TextInput
        aria-label="Title"
        autoFocus
        value={edit.draft}
        onChange={(event) => edit.change(event.target.value)}
        onKeyDown={(event) => editorKeys(event, edit, true)}
        onBlur={edit.commit}
        aria-invalid={edit.problem ? true : undefined}
        className="text-base font-semibold"
      />
      {edit.problem && <p className="mt-1 text-xs text-rose-700 dark:text-rose-300">{edit.problem}</p>}
    </div>
  );
}

type DetailsProps = {
  task: TaskDetail;
  agents: readonly RosterAgent[];
  members: readonly Member[];
  edits: TaskEdits;
  onError: (error: unknown) => void;
  onOpenTask: (taskId: Id<"tasks">) => void;
  now: number;
};

/** Status, priority, tags, assignees, provenance and description, each editable in place; then the subtasks. */
export function TaskDetails({ task, agents, members, edits, onError, onOpenTask, now }: DetailsProps) {
  const id = useId();
  const role = useRole();
  const writable = canWrite(role);
  // The department in the address, for the parent task's link (absent outside the router, as in tests).
  const { slug } = useParams();
  const agentsByKey = new Map(agents.map((agent) => [agent.sessionKey, agent]));
  // A card nobody delegated may still have a trace (an A2A client's card, one handed to an A2A agent): admins ask.
  const hasTrace = useQuery(api.events.hasTrace, isAdminRole(role) && task.delegatedBy === undefined ? { departmentId: task.departmentId, correlationId: cardCorrelationId(task._id) } : "skip");
  const [pickingAssignees, setPickingAssignees] = useState(false);
  const tags = useInlineEdit({
    value: formatTags(task.tags),
    validate: (draft) => tagsError(parseTags(draft)),
    save: (draft) => edits.update({ tags: parseTags(draft) }),
    onError,
  });
  const description = useInlineEdit({
    value: task.description,
    validate: descriptionError,
    save: (draft) => edits.update({ description: draft }),
    onError,
  });
  const run = (promise: Promise<unknown>) => {
    promise.catch(onError);
  };

  return (
    <div className="flex flex-col gap-5">
      <dl className="grid grid-cols-[6.5rem_minmax(0,1fr)] items-center gap-x-3 gap-y-3 text-sm">
        {writable ? (
          <>
            <dt>
              <label htmlFor={`${id}-status`} className="text-slate-500 dark:text-slate-400">
                Status
              </label>
            </dt>
            <dd>
              <Select id={`${id}-status`} value={task.status} options={STATUS_OPTIONS} onValueChange={(status) => run(edits.setStatus(status))} className="py-1.5" />
            </dd>

            <dt>
              <label htmlFor={`${id}-priority`} className="text-slate-500 dark:text-slate-400">
                Priority
              </label>
            </dt>
            <dd>
              <Select
                id={`${id}-priority`}
                value={task.priority}
                options={PRIORITY_OPTIONS}
                onValueChange={(priority) => run(edits.update({ priority }))}
                className="py-1.5"
              />
            </dd>
          </>
        ) : (
          // A viewer reads status and priority as text: nothing on screen invites a change the server would refuse.
          <>
            <dt className="text-slate-500 dark:text-slate-400">Status</dt>
            <dd data-testid="task-status" className="text-slate-800 dark:text-slate-200">
              {optionFor(STATUS_OPTIONS, task.status).label}
            </dd>
            <dt className="text-slate-500 dark:text-slate-400">Priority</dt>
            <dd>
              <Badge className={optionFor(PRIORITY_OPTIONS, task.priority).className}>{optionFor(PRIORITY_OPTIONS, task.priority).label}</Badge>
            </dd>
          </>
        )}

        <dt className="self-start pt-1.5 text-slate-500 dark:text-slate-400">
          {tags.editing ? <label htmlFor={`${id}-tags`}>Tags</label> : "Tags"}
        </dt>
        <dd>
          {tags.editing ? (
            <>
              <TextInput
                id={`${id}-tags`}
                autoFocus
                value={tags.draft}
                placeholder="launch, web"
                onChange={(event) => tags.change(event.target.value)}
                onKeyDown={(event) => editorKeys(event, tags, true)}
                onBlur={tags.commit}
                aria-invalid={tags.problem ? true : undefined}
                className="py-1.5"
              />
              <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{tags.problem ?? "Separate with commas. Enter saves."}</p>
            </>
          ) : (
            <div className="flex flex-wrap items-center gap-1.5">
              {task.tags.map((tag) => (
                <span key={tag} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-200">
                  {tag}
                </span>
              ))}
              {task.tags.length === 0 && <span className="text-slate-500 dark:text-slate-400">None</span>}
              {writable && (
                <Button variant="ghost" onClick={tags.start} className="px-1.5 py-0.5 text-xs" aria-label="Edit tags">
                  Edit
                </Button>
              )}
            </div>
          )}
        </dd>

        <dt id={`${id}-assignees`} className="self-start pt-1 text-slate-500 dark:text-slate-400">
          Assignees
        </dt>
        <dd className="flex flex-col gap-2">
          <div className="flex flex-wrap items-center gap-1.5">
            {task.assigneeSessionKeys.map((key) => {
              const name = agentsByKey.get(key)?.name ?? "Unknown agent";
              return (
                <span key={key} className="inline-flex items-center gap-1.5 rounded-full bg-slate-100 py-0.5 pr-2 pl-0.5 text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-200">
                  <Avatar initials={initials(name)} className="size-5 text-[9px]" />
                  {name}
                </span>
              );
            })}
            {task.assigneeSessionKeys.length === 0 && <span className="text-slate-500 dark:text-slate-400">Nobody yet</span>}
            {writable && (
              <Button
                variant="ghost"
                onClick={() => setPickingAssignees((open) => !open)}
                aria-expanded={pickingAssignees}
                className="px-1.5 py-0.5 text-xs"
                aria-label={pickingAssignees ? "Done editing assignees" : "Edit assignees"}
              >
                {pickingAssignees ? "Done" : "Edit"}
              </Button>
            )}
          </div>
          {writable && pickingAssignees && (
            <AssigneePicker
              agents={agents}
              selected={task.assigneeSessionKeys}
              onChange={(keys) => run(edits.assign(keys))}
              labelledBy={`${id}-assignees`}
            />
          )}
        </dd>

        {task.delegatedBy !== undefined && (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Delegated by</dt>
            <dd className="text-slate-800 dark:text-slate-200">{agentsByKey.get(task.delegatedBy)?.name ?? task.delegatedBy}</dd>
          </>
        )}
        {slug !== undefined && isAdminRole(role) && (task.delegatedBy !== undefined || hasTrace === true) && (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Trace</dt>
            <dd className="min-w-0">
              {/* The delegation's steps (events.trace), under the card's correlation id; the trace is the admins' as the event log is. */}
              <Link to={tracePath(slug, cardCorrelationId(task._id))} className="font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300">
                Trace of this delegation
              </Link>
            </dd>
          </>
        )}
        {task.parentTaskId !== undefined && (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Parent task</dt>
            <dd className="min-w-0 truncate">
              <a
                href={slug === undefined ? "#" : taskPath(slug, task.parentTaskId)}
                onClick={(event) => {
                  event.preventDefault();
                  onOpenTask(task.parentTaskId!);
                }}
                className="font-medium text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300"
              >
                {task.parentTitle ?? "Open the parent task"}
              </a>
            </dd>
          </>
        )}
      </dl>

      <p className="text-xs text-slate-500 dark:text-slate-400">
        Created{" "}
        <RelativeTime at={task._creationTime} now={now} />{" "}
        by {actorLabel(task.createdBy, agentsByKey, members)} · updated{" "}
        <RelativeTime at={task.updatedAt} now={now} />
      </p>

      <section aria-labelledby={`${id}-description`} className="flex flex-col gap-2">
        <div className="flex items-center justify-between">
          <h3 id={`${id}-description`} className="text-sm font-semibold text-slate-700 dark:text-slate-200">
            Description
          </h3>
          {writable && !description.editing && (
            <Button variant="ghost" onClick={description.start} className="px-1.5 py-0.5 text-xs" aria-label="Edit description">
              Edit
            </Button>
          )}
        </div>
        {description.editing ? (
          <div className="flex flex-col gap-2">
            <TextArea
              aria-label="Description"
              autoFocus
              rows={6}
              value={description.draft}
              onChange={(event) => description.change(event.target.value)}
              onKeyDown={(event) => editorKeys(event, description, false)}
              aria-invalid={description.problem ? true : undefined}
            />
            <div className="flex items-center justify-between gap-2">
              <p className="text-xs text-slate-500 dark:text-slate-400">{description.problem ?? "Markdown works. Ctrl/⌘+Enter saves, Esc cancels."}</p>
              <div className="flex shrink-0 gap-2">
                <Button variant="secondary" onClick={description.cancel} className="py-1">
                  Cancel
                </Button>
                <Button onClick={description.commit} className="py-1">
                  Save
                </Button>
              </div>
            </div>
          </div>
        ) : task.description.trim() === "" ? (
          <button
            type="button"
            onClick={description.start}
            className="rounded-lg border border-dashed border-slate-300 px-3 py-3 text-left text-sm text-slate-500 hover:border-slate-400 hover:text-slate-700 dark:border-slate-600 dark:text-slate-400 dark:hover:text-slate-200"
          >
            No description yet. Add one…
          </button>
        ) : (
          <Markdown>{task.description}</Markdown>
        )}
      </section>

      <Subtasks taskId={task._id} onOpenTask={onOpenTask} hrefFor={(id) => (slug === undefined ? "#" : taskPath(slug, id))} />
    </div>
  );
}
