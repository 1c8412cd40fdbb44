/**
 * The squad's A2A tasks on the wire: a task as Maestro reads it from its
 * card (lib/a2aServer A2ATaskView) as the protocol's Task, for the JSON-RPC
 * answers (convex/a2aServerApi.ts) and the push notifications
 * (convex/a2aServerPush.ts) alike.
 */
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from "@a2a-js/sdk";
import type { A2APartView, A2AServerState, A2ATaskView } from "./a2aServer";

const STATE: Record<A2AServerState, TaskState> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  "input-required": TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
};

function part(view: A2APartView): Part | null {
  if (view.kind === "text") return { content: { $case: "text", value: view.text }, metadata: undefined, filename: "", mediaType: "text/plain" };
  if (view.url === null) return null;
  return { content: { $case: "url", value: view.url }, metadata: undefined, filename: view.name, mediaType: view.mediaType };
}

function parts(views: readonly A2APartView[]): Part[] {
  return views.map(part).filter((p): p is Part => p !== null);
}

/** A plain task view (reactions/a2aServer) as the protocol's Task. */
export function protocolTask(view: A2ATaskView): Task {
  const message = (id: string, role: "user" | "agent", content: Part[]): Message => ({
    messageId: id,
    contextId: view.contextId,
    taskId: view.id,
    role: role === "user" ? Role.ROLE_USER : Role.ROLE_AGENT,
    parts: content,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });
  const artifacts: Artifact[] = view.artifacts.map((a) => ({ artifactId: a.id, name: a.name, description: a.description, parts: parts(a.parts), metadata: undefined, extensions: [] }));
  return {
    id: view.id,
    contextId: view.contextId,
    status: {
      state: STATE[view.state],
      message: view.message === null ? undefined : message(`${view.id}:status:${view.at}`, "agent", [{ content: { $case: "text", value: view.message }, metadata: undefined, filename: "", mediaType: "text/plain" }]),
      timestamp: new Date(view.at).toISOString(),
    },
    artifacts,
    history: view.history.map((m) => message(m.id, m.role, parts(m.parts))),
    metadata: { correlationId: `a2a:${view.id}` },
  };
}

