/**
 * Recovery: kill -9 the backend while two runs are in flight, start it
 * again, and every run ends or completes within the sweeper's period with
 * nothing duplicated. A run that had not started a tool runs again (attempt
 * 2) and answers once; a run that had already posted through a tool ends
 * `error` "interrupted", said in the thread, and its post stays single.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import { afterAll, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { OWNER_PASSWORD, PROJECT_ROOT, seedDemoSquad, signInWithPassword, tempDataDir, waitFor } from "./helpers";
import { killHard, spawnBackend, type BackendProcess } from "./process";
import { scriptedModelEnv, startScriptedModel } from "./scriptedModel";

const running: BackendProcess[] = [];
const dataDir = tempDataDir();
let model: Awaited<ReturnType<typeof startScriptedModel>> | undefined;
afterAll(async () => {
  await Promise.all(running.splice(0).map(killHard));
  await model?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Before the restart every model call hangs in a slow stream, except B's first (a tool call); after it, answers come at once. */
let restarted = false;

test("kill -9 mid-run, restart: each run ends or completes within the sweeper period, nothing duplicated", async () => {
  model = await startScriptedModel(({ messages }) => {
    const prompt = messages.map((m) => m.content).join("\n");
    const last = messages.at(-1)?.content ?? "";
    const isB = prompt.includes("Recovery B");
    if (!restarted && isB && !last.startsWith("=== TOOL RESULTS ===")) return '[TOOL: post_message ARG: {"content": "side effect B"}]';
    if (!restarted) return { content: "never finished", pieces: ["never ", "finished ", "at all"], pieceDelayMs: 60_000 };
    return isB ? "B again (must not happen)" : "Recovered A.";
  });
  const env = {
    ...scriptedModelEnv(model),
    MAESTRO_RUN_LEASE_MS: "2000",
    MAESTRO_RUN_SWEEP_SECONDS: "1",
  };
  const convexDir = path.join(PROJECT_ROOT, "convex");
  const first = await spawnBackend({ dataDir, convexDir, env });
  running.push(first);
  const { member: ada, departmentId, email } = await seedDemoSquad(first);

  const start = async (title: string) => {
    const taskId = await ada.mutation(api.tasks.create, { departmentId, title, description: "", assigneeSessionKeys: [] });
    await ada.mutation(api.messages.create, { taskId, content: `@Jarvis work on ${title}` });
    return taskId;
  };
  const a = await start("Recovery A");
  const b = await start("Recovery B");
  // A is streaming (no tool yet); B posted through a tool and is waiting on its second model call.
  await waitFor(async () => ((await ada.query(api.runs.streamingForTask, { taskId: a }))[0]?.text ?? "") !== "", 20_000, "A streaming");
  await waitFor(async () => model!.requests.some((r) => r.messages.map((m) => m.content).join("\n").includes("Recovery B") && r.messages.at(-1)!.content.startsWith("=== TOOL RESULTS ===")), 20_000, "B's second model call");
  await killHard(first);
  running.splice(0);

  restarted = true;
  const second = await spawnBackend({ dataDir, convexDir, env });
  running.push(second);
  const client = new ConvexHttpClient(second.url);
  client.setAuth(await signInWithPassword(second.siteUrl, email, OWNER_PASSWORD));
  const runsOf = (taskId: Id<"tasks">) => client.query(api.runs.listForTask, { taskId });
  // Lease 2 s + sweeper every 1 s: well within this bound.
  await waitFor(async () => {
    const all = [...(await runsOf(a)), ...(await runsOf(b))];
    return all.every((run) => run.status !== "queued" && run.status !== "running");
  }, 20_000, "every run to end after the restart");

  const thread = async (taskId: Id<"tasks">) =>
    (await client.query(api.messages.list, { taskId, paginationOpts: { numItems: 50, cursor: null } })).page
      .reverse()
      .map((m) => `${m.author.kind === "system" ? "system" : m.author.name}: ${m.content}`);
  const [runA] = await runsOf(a);
  const [runB] = await runsOf(b);
  expect(await runsOf(a)).toHaveLength(1);
  expect(await runsOf(b)).toHaveLength(1);
  expect(runA.status).toBe("completed");
  expect(await thread(a)).toEqual(["Ada: @Jarvis work on Recovery A", "Jarvis: Recovered A."]);
  expect(runB).toMatchObject({ status: "error", reason: "interrupted" });
  expect(await thread(b)).toEqual(["Ada: @Jarvis work on Recovery B", "Jarvis: side effect B", "system: Jarvis could not finish: interrupted"]);

  const eventsA = (await client.query(api.runEvents.listForRun, { runId: runA._id })).map((e) => e.payload.type);
  expect(eventsA.filter((type) => type === "agent_start")).toHaveLength(2);
  expect(eventsA.filter((type) => type === "agent_end")).toHaveLength(1);
  expect(eventsA).toContain("control_submitted");
  const eventsB = (await client.query(api.runEvents.listForRun, { runId: runB._id })).map((e) => e.payload.type);
  expect(eventsB.filter((type) => type === "tool_call")).toHaveLength(1);
  expect(eventsB.at(-1)).toBe("agent_end");
  const jarvis = (await client.query(api.agents.list, { departmentId })).find((agent) => agent.name === "Jarvis");
  expect(jarvis?.status).toBe("idle");
}, 90_000);
