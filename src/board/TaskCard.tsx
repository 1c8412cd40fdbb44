import { Avatar } from "../components/ui/Avatar";
import { Badge } from "../components/ui/Badge";
import { initials } from "./initials";
import { optionFor, PRIORITY_OPTIONS } from "./options";
import type { RosterAgent, TaskCardData } from "./types";

/** Assignee avatars shown before collapsing the rest into "+n". */
const MAX_AVATARS = 3;

/** One task on the board. */
export function TaskCard({ task, agentsByKey }: { task: TaskCardData; agentsByKey: ReadonlyMap<string, RosterAgent> }) {
  const priority = optionFor(PRIORITY_OPTIONS, task.priority);
  const shown = task.assigneeSessionKeys.slice(0, MAX_AVATARS);
  const hidden = task.assigneeSessionKeys.length - shown.length;

  return (
    <li
      data-testid="task-card"
      className="rounded-lg border border-slate-200 bg-white p-3 shadow-sm transition-shadow hover:shadow-md"
    >
      <p className="text-sm font-medium break-words text-slate-900">{task.title}</p>

      {task.tags.length > 0 && (
        <ul className="mt-2 flex flex-wrap gap-1" aria-label="Tags">
          {task.tags.map((tag) => (
            <li key={tag} className="rounded bg-slate-100 px-1.5 py-0.5 text-[11px] text-slate-600">
              {tag}
            </li>
          ))}
        </ul>
      )}

      <div className="mt-3 flex items-center justify-between gap-2">
        <div className="flex flex-wrap items-center gap-1">
          <Badge className={priority.className} title="Priority">
            {priority.label}
          </Badge>
          {task.delegatedBy !== undefined && (
            <Badge className="bg-indigo-50 text-indigo-700 ring-indigo-600/20" title={`Delegated by ${task.delegatedBy}`}>
              Delegated
            </Badge>
          )}
        </div>
        {task.assigneeSessionKeys.length > 0 && (
          <div className="flex shrink-0 -space-x-1.5">
            {shown.map((key) => {
              const agent = agentsByKey.get(key);
              return agent ? (
                <Avatar key={key} initials={initials(agent.name)} label={`Assigned to ${agent.name}`} />
              ) : (
                // Assignee left the roster (or isn't loaded): still show that someone holds it.
                <Avatar key={key} initials="?" label={`Assigned to unknown agent ${key}`} className="bg-slate-100 text-slate-500" />
              );
            })}
            {hidden > 0 && (
              <Avatar initials={`+${hidden}`} label={`${hidden} more assignees`} className="bg-slate-100 text-slate-600" />
            )}
          </div>
        )}
      </div>
    </li>
  );
}
