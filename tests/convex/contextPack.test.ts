/**
 * The project-graph context pack: what lib/contextPack keeps, in which
 * order, what it leaves out because the prompt already holds it, and that it
 * never exceeds its budget; and what records/projectGraph reads around a
 * run (parent, siblings, batch peers, readable threads, artifacts).
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { buildContextPack, PACK_HEAD, type ProjectGraph } from "../../convex/lib/contextPack";
import { countTokens } from "../../convex/lib/tokens";
import { AGENTS, demoSquad, insertRun, roundInputs, taskRow, type TestConvex } from "./setup";

const task = (id: string, title: string, status = "in_progress", assignees: string[] = []) => ({ id, title, status, assignees });

function bigGraph(n: number): ProjectGraph {
  return {
    parent: task("p", "Launch the pricing page", "in_progress", ["Jarvis"]),
    siblings: Array.from({ length: n }, (_, i) => task(`s${i}`, `Sibling task number ${i} with a longer title`, "assigned", ["Writer"])),
    children: Array.from({ length: n }, (_, i) => task(`c${i}`, `Delegated piece ${i}`, "review", ["Dev Bot"])),
    peers: Array.from({ length: n }, (_, i) => ({ name: `Peer ${i}`, task: `Sibling task number ${i}`, status: "assigned" })),
    threads: Array.from({ length: n }, (_, i) => ({
      id: `t${i}`,
      messageIds: [`t${i}`, `r${i}`],
      where: "#launch",
      root: `Thread ${i}: should the hero say "simple" or "fair"? Opinions welcome, long discussion follows.`,
      replies: 3,
      people: ["Ada", "Writer"],
      latest: { from: "Ada", body: `Reply ${i}: let us go with fair pricing.` },
    })),
    artifacts: Array.from({ length: n }, (_, i) => ({ id: `https://docs.example/${i}`, kind: "link", label: `Spec ${i} https://docs.example/${i}`, where: "#launch" })),
  };
}

describe("buildContextPack", () => {
  test("contents in order of relevance: parent, siblings, peers, threads, artifacts, delegated tasks", () => {
    const pack = buildContextPack(bigGraph(1), { budget: 2000 });
    expect(pack.text.split("\n")).toEqual([
      PACK_HEAD,
      "Parent task:",
      '- "Launch the pricing page" (in progress; Jarvis)',
      "Sibling tasks (same parent):",
      '- "Sibling task number 0 with a longer title" (assigned; Writer)',
      "Peers on this batch:",
      '- Peer 0 on "Sibling task number 0" (assigned)',
      "Active threads (fetch with messages.fetch):",
      expect.stringMatching(/^- #launch \[t0\] \(3 replies; Ada, Writer\): "Thread 0: should the hero say .*" … latest from Ada: "Reply 0: let us go with fair pricing\."$/),
      "Artifacts:",
      "- link: Spec 0 https://docs.example/0 (in #launch)",
      "Delegated from this task:",
      '- "Delegated piece 0" (review; Dev Bot)',
      "=== END PROJECT GRAPH ===",
    ]);
    expect(pack).toMatchObject({ included: ["p", "s0", "peer:Peer 0", "t0", "https://docs.example/0", "c0"], deduped: 0, dropped: 0 });
    expect(pack.tokens).toBe(countTokens(pack.text));
  });

  test("deduplicated against the prompt: ids it holds, a thread already quoted, a link already there", () => {
    const graph = bigGraph(2);
    const already = `[Ada (human)]: ${graph.threads[1].root}\nSee https://docs.example/0 for the spec.`;
    const pack = buildContextPack(graph, { budget: 2000, already, seen: new Set(["s0", "r0"]) });
    expect(pack.deduped).toBe(4); // sibling s0 and thread t0 by id, thread t1 by its text, the first link by its URL
    expect(pack.text).not.toContain("Sibling task number 0 with");
    expect(pack.text).not.toContain("[t0]");
    expect(pack.text).not.toContain("[t1]");
    expect(pack.text).not.toContain("docs.example/0 ");
    expect(pack.text).toContain("Sibling task number 1 with");
    // The same item twice in one graph is shown once.
    const twice = buildContextPack({ ...graph, children: [graph.siblings[1]] }, { budget: 2000 });
    expect(twice.text.match(/Sibling task number 1 with/g)).toHaveLength(1);
  });

  test("never exceeds the budget, across sizes; the most relevant are kept and the rest counted", () => {
    for (const n of [0, 1, 5, 40]) {
      for (const budget of [0, 10, 30, 60, 120, 250, 500, 768, 1500]) {
        const pack = buildContextPack(bigGraph(n), { budget });
        expect(pack.tokens).toBeLessThanOrEqual(budget);
        expect(countTokens(pack.text)).toBe(pack.tokens);
        if (pack.included.length > 0) expect(pack.included[0]).toBe("p");
        if (pack.dropped > 0 && pack.text !== "") expect(pack.text).toContain(`(${pack.dropped} more not shown)`);
        expect(pack.included.length + pack.dropped + pack.deduped).toBe(n === 0 ? 1 : 1 + 5 * n);
      }
    }
  });

  test("an empty graph adds nothing", () => {
    expect(buildContextPack({ siblings: [], children: [], peers: [], threads: [], artifacts: [] }, { budget: 768 })).toEqual({
      text: "",
      tokens: 0,
      included: [],
      deduped: 0,
      dropped: 0,
    });
  });
});

async function insertTask(t: TestConvex, departmentId: Id<"departments">, title: string, assignees: string[], parentTaskId?: Id<"tasks">) {
  return await t.run(
    async (ctx) =>
      await ctx.db.insert(
        "tasks",
        taskRow(departmentId, {
          title,
          status: "in_progress",
          priority: "medium",
          assigneeSessionKeys: assignees,
          order: 1,
          ...(parentTaskId === undefined ? {} : { parentTaskId }),
        }),
      ),
  );
}

describe("the context pack a run reads (roundInputs)", () => {
  test("parent, siblings and peers of the batch; threads about the task or with the agent it may read; their artifacts", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const root = await insertTask(t, departmentId, "Pricing page", [AGENTS.jarvis]);
    const copy = await insertTask(t, departmentId, "Hero copy", [AGENTS.writer], root);
    const code = await insertTask(t, departmentId, "Build the page", [AGENTS.devBot], root);
    const detail = await insertTask(t, departmentId, "Price table copy", [AGENTS.archie], copy);
    await insertTask(t, departmentId, "Unrelated", [AGENTS.devBot]);

    const launch = await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    const about = await admin.mutation(api.channelMessages.post, {
      channelId: launch,
      body: "Hero copy: simple or fair?",
      taskId: copy,
      artifacts: [{ kind: "link", url: "https://docs.example/brief", title: "Brief" }, { kind: "task", taskId: code }],
    });
    await grace.mutation(api.channelMessages.reply, { channelId: launch, messageId: about, body: "Fair, I think." });
    await admin.mutation(api.channelMessages.post, { channelId: launch, body: "Lunch at noon" });
    const secret = await admin.mutation(api.channels.create, { departmentId, name: "board-only", visibility: "private" });
    await admin.mutation(api.channelMessages.post, { channelId: secret, body: "Hero copy budget is secret", taskId: copy });

    const runId = await insertRun(t, AGENTS.writer, copy);
    const graph = (await roundInputs(t, runId)).pack!;
    expect(graph.parent).toMatchObject({ id: root, title: "Pricing page", assignees: ["Jarvis"] });
    expect(graph.siblings.map((s) => s.title)).toEqual(["Build the page"]);
    expect(graph.children.map((c) => [c.id, c.title])).toEqual([[detail, "Price table copy"]]);
    expect(graph.peers).toEqual([
      { name: "Jarvis", task: "Pricing page", status: "in_progress" },
      { name: "Dev Bot", task: "Build the page", status: "in_progress" },
      { name: "Archie", task: "Price table copy", status: "in_progress" },
    ]);
    expect(graph.threads).toEqual([
      {
        id: about,
        messageIds: [expect.any(String), about],
        where: "#launch",
        root: "Hero copy: simple or fair?",
        replies: 1,
        people: ["Ada", "Grace"],
        latest: { from: "Grace", body: "Fair, I think." },
      },
    ]);
    expect(graph.artifacts).toEqual([
      { id: "https://docs.example/brief", kind: "link", label: "Brief https://docs.example/brief", where: "#launch" },
      { id: code, kind: "task", label: '"Build the page" (in progress)', where: "#launch" },
    ]);
  });

  test("a thread holding a critical or blocking message is marked critical, so the reranker keeps it first", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const copy = await insertTask(t, departmentId, "Hero copy", [AGENTS.writer]);
    const launch = await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    const calm = await admin.mutation(api.channelMessages.post, { channelId: launch, body: "Hero copy: any thoughts?", taskId: copy });
    const urgent = await admin.mutation(api.channelMessages.post, { channelId: launch, body: "Hero copy: the legal team says stop", taskId: copy, importance: "critical" });
    const blocking = await admin.mutation(api.channelMessages.post, { channelId: launch, body: "Hero copy: wait for me", taskId: copy, blocking: true });
    const graph = (await roundInputs(t, await insertRun(t, AGENTS.writer, copy))).pack!;
    expect(Object.fromEntries(graph.threads.map((th) => [th.id, th.critical ?? false]))).toEqual({ [calm]: false, [urgent]: true, [blocking]: true });
  });

  test("a specialist's context names its task's people without the squad; a lead's lists the squad", async () => {
    const { t, departmentId } = await demoSquad();
    const parent = await insertTask(t, departmentId, "Pricing page", [AGENTS.jarvis]);
    const copy = await t.run(async (ctx) =>
      ctx.db.insert("tasks", taskRow(departmentId, { title: "Hero copy", assigneeSessionKeys: [AGENTS.writer, AGENTS.devBot], parentTaskId: parent, delegatedBy: AGENTS.jarvis })),
    );
    const specialist = (await roundInputs(t, await insertRun(t, AGENTS.writer, copy))).context;
    expect(specialist.task).toMatchObject({ assignees: ["Writer", "Dev Bot"], delegatedBy: "Jarvis", parentTitle: "Pricing page" });
    expect(specialist.squad).toEqual([]);
    const lead = (await roundInputs(t, await insertRun(t, AGENTS.jarvis, parent))).context;
    expect(lead.squad.map((a) => a.name)).toEqual(["Archie", "Dev Bot", "Jarvis", "Writer"]);
  });
});
