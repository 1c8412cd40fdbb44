/**
 * The delegation's guards that span runs (lib/guards, reactions/delegation):
 * the task tree's budget, the depth limit and the re-delegation detector on
 * results, checked in the same transaction that creates the task.
 */
import { afterEach, describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { answersDelegation, checkDelegation } from "../../convex/lib/delegation";
import { DEFAULT_MAX_DELEGATIONS_PER_TREE, maxDelegationsPerTree, sameWork } from "../../convex/lib/guards";
import { MAX_DELEGATIONS_AT_ONCE } from "../../convex/tools/delegation";
import { AGENTS, createOtherDepartment, createTask, demoSquad, expectError, type TestConvex } from "./setup";

async function squad() {
  const { t, departmentId, admin } = await demoSquad();
  const rootId = await createTask(admin, departmentId, { title: "Launch page" });
  return { t, departmentId, admin, rootId };
}

function delegate(t: TestConvex, departmentId: Id<"departments">, parentTaskId: Id<"tasks">, title: string, extra: { onResult?: boolean; by?: string } = {}) {
  return t.mutation(internal.tools.delegation.createDelegatedTask, {
    departmentId,
    delegatorSessionKey: extra.by ?? AGENTS.jarvis,
    title,
    description: "",
    assigneeSessionKeys: [AGENTS.writer],
    instruction: `Please do ${title}.`,
    parentTaskId,
    onResult: extra.onResult,
  });
}

async function taskCount(t: TestConvex) {
  return (await t.run(async (ctx) => await ctx.db.query("tasks").collect())).length;
}

afterEach(() => {
  delete process.env.MAESTRO_MAX_DELEGATIONS_PER_TREE;
});

describe("sameWork", () => {
  const subtasks = [{ title: "Hero copy" }, { title: "Signup form" }];
  test.each([
    ["the same title", "Hero copy", "Hero copy"],
    ["case, punctuation and spacing", "  hero-COPY! ", "Hero copy"],
    ["a title containing an earlier one", "Hero copy (again)", "Hero copy"],
    ["an earlier title containing this one", "Signup", "Signup form"],
    ["different work", "Pricing table", undefined],
    ["numbered steps are different work", "Hero copy 2", "Hero copy"],
  ])("%s", (_label, title, expected) => {
    expect(sameWork(title, subtasks)?.title).toBe(expected);
  });

  test("whole words only, and nothing for an empty title", () => {
    expect(sameWork("Signup form v2", subtasks)?.title).toBe("Signup form");
    expect(sameWork("Hero", [{ title: "Heroic copy" }])).toBeUndefined();
    expect(sameWork("!!!", subtasks)).toBeUndefined();
  });
});

describe("the per-tree budget", () => {
  test("defaults to 10 and can be set per deployment", () => {
    expect(maxDelegationsPerTree({})).toBe(DEFAULT_MAX_DELEGATIONS_PER_TREE);
    expect(maxDelegationsPerTree({ MAESTRO_MAX_DELEGATIONS_PER_TREE: "3" })).toBe(3);
    expect(maxDelegationsPerTree({ MAESTRO_MAX_DELEGATIONS_PER_TREE: "zero" })).toBe(DEFAULT_MAX_DELEGATIONS_PER_TREE);
  });

  test("counts every delegation under the root, at any depth and by any run, then refuses with the reason", async () => {
    process.env.MAESTRO_MAX_DELEGATIONS_PER_TREE = "3";
    const { t, departmentId, admin, rootId } = await squad();
    const first = await delegate(t, departmentId, rootId, "Hero copy");
    if (!first.ok) throw new Error(first.guard.reason);
    await delegate(t, departmentId, rootId, "Signup form");
    // One level down still counts against the same tree.
    await delegate(t, departmentId, first.taskId, "Hero image", { by: AGENTS.jarvis });
    const before = await taskCount(t);
    const refused = await delegate(t, departmentId, first.taskId, "Hero video");
    expect(refused).toEqual({
      ok: false,
      guard: {
        reason: "delegation budget for this task tree reached (3 delegations under “Launch page”)",
        choices: "finish or close the tasks already delegated, or a human can create a new task for new work.",
      },
    });
    expect(await taskCount(t)).toBe(before);
    // Another tree has its own budget.
    const otherRoot = await createTask(admin, departmentId, { title: "Pricing page" });
    expect((await delegate(t, departmentId, otherRoot, "Pricing table")).ok).toBe(true);
  });

  test("the depth limit is a typed guard stop too", async () => {
    const { t, departmentId, rootId } = await squad();
    let parent = rootId;
    for (const title of ["One", "Two", "Three"]) {
      const created = await delegate(t, departmentId, parent, title);
      if (!created.ok) throw new Error(created.guard.reason);
      parent = created.taskId;
    }
    const refused = await delegate(t, departmentId, parent, "Four");
    expect(refused).toMatchObject({ ok: false, guard: { reason: "delegation depth limit reached (limit 3)" } });
  });
});

describe("re-delegating the same work on a result", () => {
  test("is refused on a result, unless a person asked for more in the thread since", async () => {
    const { t, departmentId, admin, rootId } = await squad();
    const first = await delegate(t, departmentId, rootId, "Hero copy");
    expect(first.ok).toBe(true);
    const again = await delegate(t, departmentId, rootId, "Hero copy, second pass", { onResult: true });
    expect(again).toEqual({ ok: false, guard: expect.objectContaining({ reason: "re-delegating work already delegated on a result (“Hero copy” is assigned)" }) });
    // Not on a result (a person asked in a mention): allowed.
    expect((await delegate(t, departmentId, rootId, "Hero copy for mobile")).ok).toBe(true);
    // A person asks for more in the thread: the next result may delegate it again.
    await admin.mutation(api.messages.create, { taskId: rootId, content: "The hero copy needs another pass, please." });
    expect((await delegate(t, departmentId, rootId, "Hero copy, second pass", { onResult: true })).ok).toBe(true);
  });

  test("different work on a result is allowed (the tree budget bounds it)", async () => {
    const { t, departmentId, rootId } = await squad();
    await delegate(t, departmentId, rootId, "Hero copy");
    expect((await delegate(t, departmentId, rootId, "Pricing table", { onResult: true })).ok).toBe(true);
  });
});

describe("listSubtasks", () => {
  test("lists what was delegated from a task with live status and assignee names; members of other departments are refused", async () => {
    const { t, departmentId, admin, rootId } = await squad();
    expect(await admin.query(api.tasks.listSubtasks, { taskId: rootId })).toEqual({ subtasks: [], truncated: false });
    const hero = await delegate(t, departmentId, rootId, "Hero copy");
    await delegate(t, departmentId, rootId, "Signup form");
    if (!hero.ok) throw new Error(hero.guard.reason);
    await admin.mutation(api.tasks.setStatus, { taskId: hero.taskId, status: "review" });
    const { subtasks } = await admin.query(api.tasks.listSubtasks, { taskId: rootId });
    expect(subtasks.map(({ title, status, assignees, delegatedBy }) => ({ title, status, assignees, delegatedBy }))).toEqual([
      { title: "Hero copy", status: "review", assignees: ["Writer"], delegatedBy: "Jarvis" },
      { title: "Signup form", status: "assigned", assignees: ["Writer"], delegatedBy: "Jarvis" },
    ]);
    const { member: mallory } = await createOtherDepartment(t);
    await expectError(mallory.query(api.tasks.listSubtasks, { taskId: rootId }), "FORBIDDEN");
  });
});

describe("delegation is idempotent by what it asks (lib/delegation answersDelegation, tools/delegation)", () => {
  const ask = { departmentId: "d1", parentTaskId: "p1", delegatedBy: "agent:jarvis:product", title: "Hero copy", assigneeSessionKeys: ["agent:writer:product", "agent:dev-bot:product"] };
  const task = { ...ask, title: "hero COPY!", assigneeSessionKeys: ["agent:dev-bot:product", "agent:writer:product"], status: "in_progress" };

  test("the same department, parent, delegator, normalised title and assignees, still open: the same delegation", () => {
    expect(answersDelegation(task, ask)).toBe(true);
    expect(answersDelegation({ ...task, status: "review" }, ask)).toBe(true);
  });

  test.each([
    ["done", { status: "done" }],
    ["another parent", { parentTaskId: "p2" }],
    ["another delegator", { delegatedBy: "agent:dev-bot:product" }],
    ["another department", { departmentId: "d2" }],
    ["other work", { title: "Hero image" }],
    ["fewer assignees", { assigneeSessionKeys: ["agent:writer:product"] }],
  ])("%s: new work", (_label, change) => {
    expect(answersDelegation({ ...task, ...change }, ask)).toBe(false);
  });

  test("a repeat from another cause returns the open task; once it is done, the same ask makes a new one", async () => {
    const { t, departmentId, rootId } = await squad();
    const before = await taskCount(t);
    const first = await delegate(t, departmentId, rootId, "Hero copy");
    const again = await delegate(t, departmentId, rootId, "hero COPY.");
    expect(again).toEqual({ ok: true, taskId: (first as { taskId: Id<"tasks"> }).taskId, title: "Hero copy", created: false });
    expect(await taskCount(t)).toBe(before + 1);
    await t.run(async (ctx) => ctx.db.patch("tasks", (first as { taskId: Id<"tasks"> }).taskId, { status: "done" }));
    expect(await delegate(t, departmentId, rootId, "Hero copy")).toMatchObject({ ok: true, created: true });
    expect(await taskCount(t)).toBe(before + 2);
  });
});

describe("delegateAllByName: a reply's delegations in one transaction", () => {
  const byName = (departmentId: Id<"departments">, parentTaskId: Id<"tasks">, title: string, assignees: string[]) => ({
    departmentId,
    delegatorSessionKey: AGENTS.jarvis,
    title,
    description: "",
    assignees,
    instruction: `Please do ${title}.`,
    parentTaskId,
  });

  test("each is made as delegateByName makes it, in order: a later one sees the earlier ones' tasks, and a bad one refuses only itself", async () => {
    const { t, departmentId, rootId } = await squad();
    const before = await taskCount(t);
    const results = await t.mutation(internal.tools.delegation.delegateAllByName, {
      delegations: [
        byName(departmentId, rootId, "Hero copy", ["Writer"]),
        byName(departmentId, rootId, "Nobody's job", ["Mallory"]),
        byName(departmentId, rootId, "hero COPY!", ["Writer"]),
        byName(departmentId, rootId, "Signup form", ["Dev Bot"]),
      ],
    });
    expect(results.map((r) => (r.ok ? [r.title, r.created] : [r.problem]))).toEqual([["Hero copy", true], ["unknown_assignee"], ["Hero copy", false], ["Signup form", true]]);
    expect(await taskCount(t)).toBe(before + 2);
  });

  test("is bounded, and refuses a delegator of another department, as delegateByName does", async () => {
    const { t, departmentId, rootId } = await squad();
    const many = Array.from({ length: MAX_DELEGATIONS_AT_ONCE + 1 }, (_, i) => byName(departmentId, rootId, `Part ${i}`, ["Writer"]));
    await expectError(t.mutation(internal.tools.delegation.delegateAllByName, { delegations: many }), "INVALID_ARGUMENT");
    const other = await createOtherDepartment(t);
    const before = await taskCount(t);
    await expectError(
      t.mutation(internal.tools.delegation.delegateAllByName, { delegations: [byName(departmentId, rootId, "Hero copy", ["Writer"]), { ...byName(departmentId, rootId, "Form", ["Writer"]), departmentId: other.departmentId }] }),
      "FORBIDDEN",
    );
    // One transaction: the refused one undoes the one before it too.
    expect(await taskCount(t)).toBe(before);
  });
});

describe("checkDelegation resolves what it can", () => {
  const roster = [
    { name: "Jarvis", role: "Squad Lead", sessionKey: "agent:jarvis:product" },
    { name: "Writer", role: "Copywriter", sessionKey: "agent:writer:product" },
    { name: "Dev Bot", role: "Full-stack Engineer", sessionKey: "agent:dev-bot:product" },
  ];
  const jarvis = { name: "Jarvis", sessionKey: "agent:jarvis:product" };

  test("some names unknown: the rest resolve, the unknown are listed with why", () => {
    const check = checkDelegation({ title: "T", instruction: "I", assignees: ["writer", "Casper"] }, roster, jarvis, "delegate_task");
    expect(check).toMatchObject({ ok: true, resolved: [{ name: "Writer" }], unresolved: ["Casper"], unresolvedMessage: expect.stringContaining('Unknown assignee: "Casper"') });
  });

  test("no name resolves: an error naming them", () => {
    expect(checkDelegation({ title: "T", instruction: "I", assignees: ["Casper"] }, roster, jarvis, "delegate_task")).toMatchObject({ ok: false, problem: "unknown_assignee" });
  });
});
