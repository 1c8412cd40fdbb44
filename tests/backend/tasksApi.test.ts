/**
 * Following work over HTTP (convex/tasksApi.ts) on the offline backend with
 * the demo squad and a scripted model for Jarvis: an outside agent holding
 * Dev Bot's key asks Jarvis for work with POST /tasks, follows the task and
 * the subtask Jarvis delegates to Dev Bot, reads the thread a page at a time,
 * posts there and moves its card to review — and, from the attacker's side,
 * what a key without the scopes, a revoked key, another department's ids,
 * oversized and malformed bodies reach.
 */
import { beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ApiScope } from "../../convex/lib/apiKeys";
import { scriptedSquad, squadTasks, waitFor } from "./helpers";
import { isJarvis, lastUser } from "./scriptedModel";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DELEGATION = { title: "Signup form", description: "The launch page's form.", assignees: ["Dev Bot"], instruction: "Build the signup form." };

const squad = scriptedSquad((request) => {
  if (!isJarvis(request.messages)) return "Noted.";
  const last = lastUser(request.messages);
  if (last.startsWith("=== TOOL RESULTS ===")) return "Delegated the form to Dev Bot.";
  if (last.includes("Title: Pricing page")) return `One question first. [TOOL: ask_question ARG: ${JSON.stringify({ question: "Which currency do we show?" })}]`;
  return last.includes("Launch page") ? `On it. [TOOL: delegate_task ARG: ${JSON.stringify(DELEGATION)}]` : "Nothing to do.";
});
const { thread } = squadTasks(squad);

let devBot: Id<"agents">;
let key: string;

async function newKey(scopes?: ApiScope[]): Promise<{ key: string; keyId: Id<"agentApiKeys"> }> {
  return await squad.member.mutation(api.agentApiKeys.create, { agentId: devBot, scopes });
}

async function call(method: "GET" | "POST", path: string, body?: unknown, withKey: string | null = key, headers: Record<string, string> = {}) {
  const response = await fetch(`${squad.backend.siteUrl}${path}`, {
    method,
    headers: { ...(withKey === null ? {} : { Authorization: `Bearer ${withKey}` }), ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

beforeAll(async () => {
  devBot = (await squad.member.query(api.agents.list, { departmentId: squad.departmentId })).find((a) => a.name === "Dev Bot")!._id;
  ({ key } = await newKey());
});

describe("following work over HTTP", () => {
  test("asks Jarvis with POST /tasks, follows the task and its subtask, reads the thread a page at a time, posts, and moves its card to review", async () => {
    const made = await call("POST", "/tasks", { title: "Launch page", description: "Ship the launch page.", assignees: ["Jarvis"] });
    expect(made.status).toBe(200);
    const parentId = made.body.id as string;

    // Jarvis delegates: the parent lists the subtask, with its status and who delegated it.
    let parent: Json = {};
    await waitFor(async () => {
      parent = (await call("GET", `/tasks/${parentId}`)).body;
      return parent.subtasks?.length === 1;
    }, 30_000, "Jarvis to delegate");
    expect(parent).toMatchObject({
      id: parentId,
      title: "Launch page",
      assignees: ["Jarvis"],
      created_by: "Dev Bot",
      delegated_by: null,
      parent: null,
      subtasks_truncated: false,
      waiting_for_person: [],
      archived: false,
      project_id: squad.departmentId,
    });
    const [sub] = parent.subtasks as Json[];
    expect(sub).toMatchObject({ title: "Signup form", assignees: ["Dev Bot"], delegated_by: "Jarvis" });
    expect(Number.isInteger(parent.created_at) && Number.isInteger(parent.updated_at)).toBe(true);

    // The subtask: its parent, who delegated it; and it is among the tasks assigned to the key's agent.
    const child = (await call("GET", `/tasks/${sub.id}`)).body;
    expect(child).toMatchObject({ id: sub.id, parent: { id: parentId, title: "Launch page" }, delegated_by: "Jarvis", assignees: ["Dev Bot"] });
    const mine = (await call("GET", "/tasks?assignee=me")).body;
    expect(mine.tasks.map((t: Json) => t.id)).toContain(sub.id);
    expect(mine.tasks.find((t: Json) => t.id === sub.id)).toMatchObject({ parent_id: parentId, delegated_by: "Jarvis" });
    expect((await call("GET", "/tasks?assignee=Jarvis")).body.tasks.map((t: Json) => t.id)).toContain(parentId);

    // Its thread, one message a page, oldest first: every message once, as a member sees it.
    const posted = await call("POST", `/tasks/${sub.id}/messages`, { body: "Form is up; staging key AKIAIOSFODNN7EXAMPLE", client_message_id: "form-up" });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ task_id: sub.id, from: "Dev Bot", from_kind: "agent", edited: false, deleted: false });
    expect(posted.body.body).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect((await call("POST", `/tasks/${sub.id}/messages`, { body: "Form is up; staging key AKIAIOSFODNN7EXAMPLE", client_message_id: "form-up" })).body.id).toBe(posted.body.id);
    const read: Json[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const page: Json = (await call("GET", `/tasks/${sub.id}/messages?limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)).body;
      read.push(...page.messages);
      cursor = page.next_cursor;
      if (page.done) break;
    }
    const seen = (await thread(sub.id as Id<"tasks">)).map((m) => m._id);
    expect(read.map((m) => m.id)).toEqual(seen);
    expect(read.at(-1)!.id).toBe(posted.body.id);
    // The last page's cursor picks up what is posted later.
    const later = await call("POST", `/tasks/${sub.id}/messages`, { body: "One more thing." });
    expect((await call("GET", `/tasks/${sub.id}/messages?cursor=${encodeURIComponent(cursor!)}`)).body.messages.map((m: Json) => m.id)).toEqual([later.body.id]);

    // The card it holds moves to review; the parent sees it, and the parent's thread says so.
    const moved = await call("POST", `/tasks/${sub.id}/status`, { status: "review" });
    expect(moved).toMatchObject({ status: 200, body: { id: sub.id, to: "review" } });
    expect((await call("GET", `/tasks/${parentId}`)).body.subtasks[0].status).toBe("review");
    await waitFor(async () => (await thread(parentId as Id<"tasks">)).some((m) => m.content.includes("Signup form") && /review/i.test(m.content)), 10_000, "the parent's update line");
  }, 60_000);
});

describe("what waits for a person", () => {
  test("an agent's open question shows in waiting_for_person, and the task cannot be moved past it", async () => {
    const made = (await call("POST", "/tasks", { title: "Pricing page", assignees: ["Jarvis"] })).body;
    let task: Json = {};
    await waitFor(async () => {
      task = (await call("GET", `/tasks/${made.id}`)).body;
      return task.waiting_for_person?.length === 1;
    }, 30_000, "Jarvis's question");
    expect(task.waiting_for_person).toEqual([{ kind: "question", id: expect.any(String), agent: "Jarvis", text: "Which currency do we show?", since: expect.any(Number), expires_at: expect.any(Number) }]);
    expect(await call("POST", `/tasks/${made.id}/status`, { status: "done" })).toMatchObject({ status: 409, body: { error: expect.stringContaining("question") } });
  }, 40_000);
});

describe("the attacker's view of the task routes", () => {
  let writerTask: string;
  let otherDepartmentTask: string;

  beforeAll(async () => {
    writerTask = await squad.member.mutation(api.tasks.create, { departmentId: squad.departmentId, title: "Writer's copy", assigneeSessionKeys: ["agent:writer:product"] });
    const other = await squad.member.mutation(api.departments.create, { name: "Secret lab" });
    otherDepartmentTask = await squad.member.mutation(api.tasks.create, { departmentId: other, title: "Hidden work" });
  });

  test("without a key, with a malformed or revoked key: 401 naming the challenge, before the path is looked at", async () => {
    const none = await call("GET", `/tasks/${writerTask}`, undefined, null);
    expect(none.status).toBe(401);
    expect(none.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    expect((await call("GET", "/tasks/nope/nothing/here", undefined, "mk_not-a-key")).status).toBe(401);
    const revoked = await newKey();
    await squad.member.mutation(api.agentApiKeys.revoke, { keyId: revoked.keyId });
    for (const [method, path, body] of [
      ["GET", "/tasks"],
      ["GET", `/tasks/${writerTask}`],
      ["GET", `/tasks/${writerTask}/messages`],
      ["POST", `/tasks/${writerTask}/messages`, { body: "hi" }],
      ["POST", `/tasks/${writerTask}/status`, { status: "done" }],
    ] as const) {
      expect(await call(method, path, body, revoked.key), `${method} ${path}`).toMatchObject({ status: 401, body: { error: "This API key has been revoked." } });
    }
  });

  test("a key without tasks:read or tasks:write is refused 403 naming the scope", async () => {
    const readOnly = await newKey(["tasks:read"]);
    const writeOnly = await newKey(["tasks:write"]);
    expect(await call("GET", `/tasks/${writerTask}`, undefined, readOnly.key)).toMatchObject({ status: 200 });
    expect(await call("POST", `/tasks/${writerTask}/messages`, { body: "hi" }, readOnly.key)).toMatchObject({ status: 403, body: { error: expect.stringContaining('"tasks:write" scope') } });
    expect(await call("POST", `/tasks/${writerTask}/status`, { status: "done" }, readOnly.key)).toMatchObject({ status: 403 });
    for (const path of ["/tasks", `/tasks/${writerTask}`, `/tasks/${writerTask}/messages`]) {
      expect(await call("GET", path, undefined, writeOnly.key), path).toMatchObject({ status: 403, body: { error: expect.stringContaining('"tasks:read" scope') } });
    }
  });

  test("another department's task reads as unknown, like a made-up id; nothing is posted or moved there", async () => {
    for (const id of [otherDepartmentTask, "not-a-task-id", writerTask.replace(/.$/, (c) => (c === "a" ? "b" : "a"))]) {
      expect(await call("GET", `/tasks/${id}`), id).toMatchObject({ status: 404, body: { error: "Task not found in this project." } });
      expect((await call("GET", `/tasks/${id}/messages`)).status).toBe(404);
      expect((await call("POST", `/tasks/${id}/messages`, { body: "in?" })).status).toBe(404);
      expect((await call("POST", `/tasks/${id}/status`, { status: "done" })).status).toBe(404);
    }
    expect(await squad.member.query(api.tasks.get, { taskId: otherDepartmentTask as Id<"tasks"> })).toMatchObject({ status: "inbox" });
    expect(await thread(otherDepartmentTask as Id<"tasks">)).toEqual([]);
    expect((await call("GET", "/tasks?assignee=Nobody")).status).toBe(404);
  });

  test("a task the agent does not hold may be read and posted in, but not moved", async () => {
    expect((await call("POST", `/tasks/${writerTask}/messages`, { body: "Looks good, @Writer" })).status).toBe(200);
    const refused = await call("POST", `/tasks/${writerTask}/status`, { status: "done" });
    expect(refused).toMatchObject({ status: 403, body: { error: expect.stringContaining("may move only the tasks it is assigned, delegated or created") } });
    expect((await squad.member.query(api.tasks.get, { taskId: writerTask as Id<"tasks"> })).status).toBe("assigned");
  });

  test("bad bodies, queries and paths: 400, 404 and 413 with a JSON error", async () => {
    expect(await call("POST", `/tasks/${writerTask}/status`, { status: "shipped" })).toMatchObject({ status: 400, body: { error: expect.stringContaining('"status" must be one of') } });
    expect(await call("POST", `/tasks/${writerTask}/messages`, "{not json")).toMatchObject({ status: 400 });
    expect(await call("POST", `/tasks/${writerTask}/messages`, [1, 2])).toMatchObject({ status: 400 });
    expect(await call("POST", `/tasks/${writerTask}/messages`, { body: "" })).toMatchObject({ status: 400 });
    expect(await call("POST", `/tasks/${writerTask}/messages`, { body: 42 })).toMatchObject({ status: 400 });
    expect(await call("POST", `/tasks/${writerTask}/messages`, { body: "x".repeat(10_001) })).toMatchObject({ status: 413 });
    expect(await call("POST", `/tasks/${writerTask}/messages`, { body: "hi", padding: "x".repeat(200_000) })).toMatchObject({ status: 413 });
    expect(await call("GET", `/tasks/${writerTask}/messages?limit=0`)).toMatchObject({ status: 400 });
    expect(await call("GET", `/tasks/${writerTask}/messages?limit=101`)).toMatchObject({ status: 400 });
    expect(await call("GET", `/tasks/${writerTask}/messages?cursor=not-a-cursor`)).toMatchObject({ status: 400, body: { error: expect.stringContaining('"cursor"') } });
    expect(await call("GET", `/tasks/${writerTask}/nothing`)).toMatchObject({ status: 404, body: { error: expect.stringContaining("GET /tasks/{id}") } });
    expect(await call("GET", "/tasks?status=shipped")).toMatchObject({ status: 400 });
    expect(await call("GET", "/tasks/%E0%A4%A")).toMatchObject({ status: 400 });
  });
});
