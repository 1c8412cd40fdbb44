/**
 * Runs the eval's scenarios through the product's own run path: an offline
 * backend over the real convex/ (in this process, as npm start runs it), a
 * first-run owner, and per scenario a throwaway department whose roster is
 * made with agents.create (every agent thinking with the model under test),
 * the person's messages posted with chat.postAsHuman and messages.create.
 * The real brain runs with its real prompt, tools and dispatcher; once no
 * run is queued or running, what happened is read back from the records
 * (tasks, approval and plan cards, runs with their tool calls, tokens and
 * timings, the thread) with the owner's own queries, and scored (score.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { MAX_DEPARTMENTS_PER_MEMBER } from "../../convex/lib/limits";
import { startBackend } from "../local-backend/server";
import { leadOf, rosterOf, type Scenario } from "./scenario";
import { taskSnapshot } from "../../convex/lib/evalResults";
import { observeSnapshot, type TaskSnapshot } from "./observe";
import { scoreScenario, type Observed, type Verdict } from "./score";

const PROJECT_ROOT = path.resolve(import.meta.dirname, "../..");
/** Departments one backend's owner makes before the next backend starts (each person may own MAX_DEPARTMENTS_PER_MEMBER). */
const SCENARIOS_PER_BACKEND = MAX_DEPARTMENTS_PER_MEMBER - 2;

export interface SuiteOptions {
  scenarios: readonly Scenario[];
  /** The model every agent of the scenario's department names (the server is OPENAI_BASE_URL, as for the app). */
  model: string;
  /** Scenarios run at once, each in its own department (default 4). */
  concurrency?: number;
  /** Longest wait for a step's runs to settle (default 120 s). */
  settleTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface SuiteResult {
  model: string;
  verdicts: Verdict[];
  wallMs: number;
}

/** Runs every scenario for one model and scores each; a scenario that could not run fails with the reason. */
export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const started = performance.now();
  const verdicts: Verdict[] = [];
  for (let from = 0; from < options.scenarios.length; from += SCENARIOS_PER_BACKEND) {
    const chunk = options.scenarios.slice(from, from + SCENARIOS_PER_BACKEND);
    const squad = await startEvalBackend();
    try {
      const results = await inParallel(chunk, options.concurrency ?? 4, async (scenario, i) => {
        try {
          const observed = await runScenario(squad.owner, scenario, options.model, from + i, options.settleTimeoutMs ?? 120_000);
          const verdict = scoreScenario(scenario, observed);
          options.log?.(`${options.model} · ${scenario.id}: ${verdict.pass ? "pass" : "FAIL"}`);
          return verdict;
        } catch (error) {
          options.log?.(`${options.model} · ${scenario.id}: could not run: ${String(error)}`);
          return couldNotRun(scenario, error);
        }
      });
      verdicts.push(...results);
    } finally {
      await squad.stop();
    }
  }
  return { model: options.model, verdicts, wallMs: performance.now() - started };
}

/** A scenario the runner could not run: failed, with the reason. */
function couldNotRun(scenario: Scenario, error: unknown): Verdict {
  const verdict = scoreScenario(scenario, { delegations: [], calls: [], runs: [], replies: [] });
  return { ...verdict, pass: false, why: [`could not run: ${error instanceof Error ? error.message : String(error)}`] };
}

/** An offline backend over the real convex/ in a fresh data folder, with its first-run owner signed in. */
export async function startEvalBackend(): Promise<{ owner: ConvexHttpClient; url: string; siteUrl: string; adminKey: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "maestro-eval-"));
  const password = randomBytes(12).toString("hex");
  const backend = await startBackend({ projectRoot: PROJECT_ROOT, dataDir, port: 0, sitePort: 0, password, watch: false, log: () => {} });
  try {
    const response = await fetch(`${backend.siteUrl}/auth/password`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ flow: "signUp", email: "eval@example.com", password: `eval ${password}`, name: "Eve", setupPassword: password }),
    });
    const body = (await response.json()) as { token?: string; error?: string };
    if (response.status !== 200 || body.token === undefined) throw new Error(`The eval's owner setup failed: ${response.status} ${JSON.stringify(body)}`);
    const owner = new ConvexHttpClient(backend.url);
    owner.setAuth(body.token);
    return {
      owner,
      url: backend.url,
      siteUrl: backend.siteUrl,
      adminKey: backend.adminKey,
      async stop() {
        await backend.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Sets the scenario up in a department of its own, posts its messages as the owner, waits for each step's runs, reads what happened. */
export async function runScenario(owner: ConvexHttpClient, scenario: Scenario, model: string, index: number, settleTimeoutMs: number): Promise<Observed> {
  const departmentId = await owner.mutation(api.departments.create, { name: `Eval ${index + 1} ${scenario.id}`.slice(0, 80) });
  // A new department starts with a squad lead of its own: the scenario's lead takes its place (name, prompt, tools).
  const starters = await owner.query(api.agents.list, { departmentId });
  const starterLead = starters.find((agent) => agent.isSquadLead);
  if (starters.length > (starterLead === undefined ? 0 : 1)) throw new Error(`A new department started with agents besides its lead: ${starters.map((a) => a.name).join(", ")}`);
  for (const agent of rosterOf(scenario)) {
    const fields = { name: agent.name, role: agent.role, kind: agent.kind, model, systemPrompt: agent.systemPrompt, isSquadLead: agent.lead, allowedTools: agent.tools };
    if (agent.lead && starterLead !== undefined) await owner.mutation(api.agents.update, { agentId: starterLead._id, ...fields });
    else await owner.mutation(api.agents.create, { departmentId, ...fields });
  }
  for (const text of scenario.chat) await owner.mutation(api.chat.postAsHuman, { departmentId, text });
  const taskId = await owner.mutation(api.tasks.create, { departmentId, title: scenario.task.title, description: scenario.task.description });
  for (const content of scenario.thread) await owner.mutation(api.messages.create, { taskId, content });

  await owner.mutation(api.messages.create, { taskId, content: scenario.request });
  await settle(owner, departmentId, 1, settleTimeoutMs);
  let followUpAt = Infinity;
  if (scenario.followUp !== undefined) {
    const before = (await owner.query(api.runs.listForDepartment, { departmentId })).length;
    followUpAt = Date.now();
    await owner.mutation(api.messages.create, { taskId, content: scenario.followUp });
    await settle(owner, departmentId, before + 1, settleTimeoutMs);
  }
  return await observe(owner, departmentId, taskId, leadOf(scenario), followUpAt);
}

/** Waits until the department has at least `runs` runs and none is queued or running (twice in a row). */
async function settle(owner: ConvexHttpClient, departmentId: Id<"departments">, runs: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  while (Date.now() < deadline) {
    const list = await owner.query(api.runs.listForDepartment, { departmentId });
    const busy = list.some((run) => run.status === "queued" || run.status === "running");
    quiet = list.length >= runs && !busy ? quiet + 1 : 0;
    if (quiet >= 2) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the runs did not settle within ${Math.round(timeoutMs / 1000)} s`);
}

/** What happened in the department, read from its records through the owner's queries. */
export async function observe(owner: ConvexHttpClient, departmentId: Id<"departments">, taskId: Id<"tasks">, lead: string, followUpAt: number): Promise<Observed> {
  const agents = await owner.query(api.agents.list, { departmentId });
  const nameOf = new Map(agents.map((a) => [a.sessionKey, a.name]));
  const cards = (await owner.query(api.tasks.list, { departmentId })).flatMap((column) => column.tasks);
  const tasks: TaskSnapshot[] = [];
  for (const card of cards) {
    const task = await owner.query(api.tasks.get, { taskId: card._id });
    const approvals = await owner.query(api.approvals.listForTask, { taskId: task._id });
    const plans = await owner.query(api.plans.listForTask, { taskId: task._id });
    const runs = await owner.query(api.runs.listForTask, { taskId: task._id });
    tasks.push(taskSnapshot({ task, approvals, plans, runs }, nameOf));
  }
  const thread = (await owner.query(api.messages.list, { taskId, paginationOpts: { numItems: 100, cursor: null } })).page.reverse();
  return observeSnapshot({ tasks, thread: thread.map((m) => ({ authorKind: m.author.kind, authorName: m.author.kind === "system" ? "" : m.author.name, content: m.content })) }, lead, followUpAt);
}

/** Runs `work` over `items`, at most `limit` at a time; results in the items' order. */
async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i], i);
      }
    }),
  );
  return results;
}
