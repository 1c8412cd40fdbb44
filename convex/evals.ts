/**
 * The delegation eval in the app. An admin starts it on the Figures page
 * (`start`): the bundled scenarios (tools/eval/bundled.ts, the same JSON
 * files `npm run eval` reads) run one at a time on this deployment, each in
 * a throwaway department (no members: no list, search or address reaches
 * it) whose agents think with the department's own model, through the
 * product's own path — a person's posts wake the lead as they always do,
 * and the real brain runs with its real prompt, tools and dispatcher. A
 * scheduled mutation (`advance`) steps it: set a scenario up, wait for its
 * runs to settle, post the follow-up, read what happened, score it with the
 * same pure scorer as the CLI, delete the department, go on. The result is
 * stored as the department's newest (`latest`, with its date and model);
 * `status` shows the progress; `cancel` stops it (its department is still
 * deleted). A sweep (`sweep`) ends a stalled eval and deletes leftovers.
 *
 * `npm run eval -- --report-to` stores a result made outside the
 * deployment with its admin key (`record`, internal).
 */
import { v } from "convex/values";
import { internal } from "./_generated/api";
import type { Id } from "./_generated/dataModel";
import { env, internalMutation, internalQuery, type MutationCtx, type QueryCtx } from "./_generated/server";
import { departmentMutation, departmentQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { evalEstimate, evalResultProblem, EVAL_APP_LIMITS } from "./lib/evalResults";
import { modelConfigFromEnv, modelConfigProblem } from "./lib/modelConfig";
import { KNOWN_MODEL_PRICES } from "./lib/pricing";
import { agentSessionKey } from "./lib/names";
import { createTask } from "./reactions/taskChange";
import { postToThread } from "./reactions/threadPost";
import { wakeChatMentions } from "./reactions/chatMention";
import { departmentAgents, insertAgent, clearOtherLeads } from "./records/agents";
import { postChatMessage } from "./records/chat";
import { departmentBySlug } from "./records/departments";
import { latestEvalResult, saveEvalResult } from "./records/evalResults";
import {
  departmentSnapshot,
  evalDepartments,
  insertEvalDepartment,
  insertEvalRun,
  newestEval,
  patchEvalRun,
  purgeEvalDepartment,
  runningEval,
  runningEvals,
  runsSettling,
  type EvalRun,
} from "./records/evalRuns";
import { redactForDepartment, saveToolCallMode, settingsOf } from "./records/settings";
import { vEvalResult, type EvalResult } from "./validators";
import { BUNDLED_SCENARIOS } from "../tools/eval/bundled";
import { observeSnapshot } from "../tools/eval/observe";
import { leadOf, pickScenarios, rosterOf, type Scenario } from "../tools/eval/scenario";
import { scoreScenario, summarize, type Verdict } from "../tools/eval/score";
import { storedResult } from "../tools/eval/stored";

/** The department's newest eval result, or null before any. */
export const latest = departmentQuery({
  args: {},
  returns: v.union(vEvalResult, v.null()),
  handler: async (ctx, { departmentId }) => await latestEvalResult(ctx, departmentId),
});

/** Saves a result as the department's newest: bounded, every text scanned for secrets under its scanner setting (models wrote the titles it quotes). */
async function saveScanned(ctx: MutationCtx, departmentId: Id<"departments">, result: EvalResult): Promise<void> {
  const problem = evalResultProblem(result);
  if (problem !== null) throw new MaestroError("INVALID_ARGUMENT", problem);
  const scan = (text: string) => redactForDepartment(ctx, departmentId, "eval result", text);
  const scenarios = [];
  for (const scenario of result.scenarios) {
    const verdicts = [];
    for (const verdict of scenario.verdicts) verdicts.push({ ...verdict, why: await Promise.all(verdict.why.map(scan)) });
    scenarios.push({ ...scenario, verdicts });
  }
  await saveEvalResult(ctx, departmentId, { ...result, server: await scan(result.server), scenarios });
}

/** Stores an eval result as the department's newest (by slug, as the CLI names it). */
export const record = internalMutation({
  args: { departmentSlug: v.string(), result: vEvalResult },
  returns: v.null(),
  handler: async (ctx, { departmentSlug, result }) => {
    const department = await departmentBySlug(ctx, departmentSlug);
    if (department === null || department.evalOf !== undefined) throw new MaestroError("NOT_FOUND", `No department has the slug ${departmentSlug}.`);
    await saveScanned(ctx, department._id, result);
    return null;
  },
});

/** The model the department's agents think with: its lead's own, else the deployment's default. */
async function departmentModel(ctx: QueryCtx, departmentId: Id<"departments">): Promise<string | null> {
  const config = modelConfigFromEnv(env);
  if (config === null) return null;
  const lead = (await departmentAgents(ctx, departmentId)).find((agent) => agent.isSquadLead && agent.runsOutside !== true);
  return lead?.model ?? config.defaultModel;
}

const vEvalProgress = v.object({
  status: v.union(v.literal("running"), v.literal("done"), v.literal("cancelled"), v.literal("failed")),
  done: v.number(),
  total: v.number(),
  model: v.string(),
  startedAt: v.number(),
  endedAt: v.optional(v.number()),
  startedByName: v.string(),
  error: v.optional(v.string()),
});

function progressOf(run: EvalRun) {
  return {
    status: run.status,
    done: Math.min(run.index, run.total),
    total: run.total,
    model: run.model,
    startedAt: run.startedAt,
    startedByName: run.startedByName,
    ...(run.endedAt === undefined ? {} : { endedAt: run.endedAt }),
    ...(run.error === undefined ? {} : { error: run.error }),
  };
}

/** What the Figures page needs to offer an eval: the scenarios, the model, what it may cost, and the newest eval run's progress. */
export const status = departmentQuery({
  args: {},
  returns: v.object({
    scenarios: v.number(),
    model: v.union(v.string(), v.null()),
    /** Why no eval can run (no model configured), or null. */
    problem: v.union(v.string(), v.null()),
    estimate: v.object({ modelCalls: v.number(), promptTokens: v.number(), completionTokens: v.number(), costMicros: v.union(v.number(), v.null()) }),
    run: v.union(vEvalProgress, v.null()),
  }),
  handler: async (ctx, { departmentId }) => {
    const problem = modelConfigProblem(env);
    const model = problem === null ? await departmentModel(ctx, departmentId) : null;
    const run = await newestEval(ctx, departmentId);
    return {
      scenarios: BUNDLED_SCENARIOS.length,
      model,
      problem: model === null ? (problem ?? "No model is configured on this deployment.") : null,
      estimate: evalEstimate(BUNDLED_SCENARIOS.length, model, KNOWN_MODEL_PRICES),
      run: run === null ? null : progressOf(run),
    };
  },
});

/** Owners and admins: start the eval on the department's model (one at a time per department). */
export const start = departmentMutation({
  role: "admin",
  /** `only`: scenario ids or kinds to run (default: every scenario), as the CLI's --only. */
  args: { only: v.optional(v.array(v.string())) },
  returns: v.id("evalRuns"),
  handler: async (ctx, { departmentId, only = [] }) => {
    if (only.length > BUNDLED_SCENARIOS.length) throw new MaestroError("INVALID_ARGUMENT", `An eval names at most ${BUNDLED_SCENARIOS.length} scenarios.`);
    const scenarios = pickScenarios(BUNDLED_SCENARIOS, only);
    if (scenarios.length === 0) throw new MaestroError("INVALID_ARGUMENT", "No scenario has that id or kind.");
    const model = await departmentModel(ctx, departmentId);
    if (model === null) throw new MaestroError("INVALID_ARGUMENT", "No model is configured on this deployment: the eval has nothing to call.");
    if ((await runningEval(ctx, departmentId)) !== null) throw new MaestroError("CONFLICT", "An eval is already running in this department.");
    const now = Date.now();
    const id = await insertEvalRun(ctx, {
      departmentId,
      startedBy: ctx.member.userId,
      startedByName: ctx.member.name,
      model,
      status: "running",
      startedAt: now,
      updatedAt: now,
      total: scenarios.length,
      scenarioIds: scenarios.map((scenario) => scenario.id),
      index: 0,
      phase: "setup",
      verdicts: [],
    });
    await ctx.scheduler.runAfter(0, internal.evals.advance, { evalRunId: id });
    return id;
  },
});

/** Owners and admins: stop the running eval; its current throwaway department is still deleted, and no result is stored. */
export const cancel = departmentMutation({
  role: "admin",
  args: {},
  returns: v.null(),
  handler: async (ctx, { departmentId }) => {
    const run = await runningEval(ctx, departmentId);
    if (run === null) throw new MaestroError("CONFLICT", "No eval is running in this department.");
    await patchEvalRun(ctx, run._id, { status: "cancelled", endedAt: Date.now(), phase: "purge" });
    await ctx.scheduler.runAfter(0, internal.evals.advance, { evalRunId: run._id });
    return null;
  },
});

/** The run's `index`th scenario. */
function scenarioOf(run: EvalRun, index: number): Scenario {
  const scenario = BUNDLED_SCENARIOS.find((s) => s.id === run.scenarioIds[index]);
  if (scenario === undefined) throw new Error(`No bundled scenario ${run.scenarioIds[index]}`);
  return scenario;
}

/** Sets the scenario `run.index` up in a department of its own, as a person would: roster, #maestro posts, the task, its thread, the request. */
async function setUp(ctx: MutationCtx, run: EvalRun): Promise<void> {
  const scenario = scenarioOf(run, run.index);
  const department = await insertEvalDepartment(ctx, run.departmentId, `Eval ${run.index + 1} ${scenario.id}`.slice(0, 80));
  const now = Date.now();
  await patchEvalRun(ctx, run._id, { phase: "request", current: { departmentId: department._id, followUpAt: 0, runs: 1, quiet: 0, deadline: now + EVAL_APP_LIMITS.stepTimeoutMs } });
  try {
    const mode = (await settingsOf(ctx, run.departmentId))?.toolCalls;
    if (mode !== undefined) await saveToolCallMode(ctx, department._id, mode);
    for (const agent of rosterOf(scenario)) {
      const agentId = await insertAgent(ctx, {
        departmentId: department._id,
        name: agent.name,
        nameKey: agent.name.toLowerCase(),
        role: agent.role,
        kind: agent.kind,
        sessionKey: agentSessionKey(agent.name, department.slug),
        status: "idle",
        isSquadLead: agent.lead,
        allowedTools: agent.tools,
        model: run.model,
        systemPrompt: agent.systemPrompt,
        createdBy: run.startedBy,
      });
      if (agent.lead) await clearOtherLeads(ctx, department._id, agentId);
    }
    const person = { kind: "member" as const, userId: run.startedBy, name: run.startedByName };
    for (const text of scenario.chat) {
      const posted = await postChatMessage(ctx, department._id, "@human", text, { userId: run.startedBy, name: run.startedByName });
      await wakeChatMentions(ctx, department._id, posted, run.startedByName);
    }
    const task = await createTask(ctx, person, { departmentId: department._id, title: scenario.task.title, description: scenario.task.description });
    for (const content of scenario.thread) await postToThread(ctx, person, task, content);
    await postToThread(ctx, person, task, scenario.request);
    await patchEvalRun(ctx, run._id, { current: { departmentId: department._id, taskId: task._id, followUpAt: 0, runs: 1, quiet: 0, deadline: now + EVAL_APP_LIMITS.stepTimeoutMs } });
  } catch (error) {
    await scored(ctx, run, couldNotRun(scenarioOf(run, run.index), error));
  }
}

/** A scenario that could not run: failed, with the reason. */
function couldNotRun(scenario: Scenario, error: unknown): Verdict {
  const verdict = scoreScenario(scenario, { delegations: [], calls: [], runs: [], replies: [] });
  return { ...verdict, pass: false, why: [`could not run: ${error instanceof Error ? error.message : String(error)}`] };
}

/** Keeps a scenario's verdict and moves on to deleting its department. */
async function scored(ctx: MutationCtx, run: EvalRun, verdict: Verdict): Promise<void> {
  await patchEvalRun(ctx, run._id, { verdicts: [...run.verdicts, JSON.stringify(verdict)], phase: "purge" });
}

/** Waits for the step's runs to settle (twice in a row); then posts the follow-up, or scores. */
async function watch(ctx: MutationCtx, run: EvalRun, current: NonNullable<EvalRun["current"]>): Promise<void> {
  const scenario = scenarioOf(run, run.index);
  const { count, busy } = await runsSettling(ctx, current.departmentId, EVAL_APP_LIMITS.runsPerScenario);
  const quiet = count >= current.runs && !busy ? current.quiet + 1 : 0;
  const now = Date.now();
  if (quiet < 2) {
    if (now > current.deadline) await scored(ctx, run, couldNotRun(scenarioOf(run, run.index), `the runs did not settle within ${Math.round(EVAL_APP_LIMITS.stepTimeoutMs / 1000)} s`));
    else await patchEvalRun(ctx, run._id, { current: { ...current, quiet } });
    return;
  }
  if (run.phase === "request" && scenario.followUp !== undefined && current.taskId !== undefined) {
    const task = (await ctx.db.get("tasks", current.taskId))!;
    await postToThread(ctx, { kind: "member", userId: run.startedBy, name: run.startedByName }, task, scenario.followUp);
    await patchEvalRun(ctx, run._id, { phase: "followUp", current: { ...current, followUpAt: now, runs: count + 1, quiet: 0, deadline: now + EVAL_APP_LIMITS.stepTimeoutMs } });
    return;
  }
  const snapshot = await departmentSnapshot(ctx, current.departmentId, current.taskId, EVAL_APP_LIMITS.rowsRead);
  const observed = observeSnapshot(snapshot, leadOf(scenario), current.followUpAt === 0 ? Infinity : current.followUpAt);
  await scored(ctx, run, scoreScenario(scenario, observed));
}

/** Stores the finished eval as the department's newest result, with its date and model. */
async function finish(ctx: MutationCtx, run: EvalRun): Promise<void> {
  const verdicts = run.verdicts.map((json) => JSON.parse(json) as Verdict);
  const now = Date.now();
  const config = modelConfigFromEnv(env);
  const server = config?.label ?? (config?.baseURL ?? "https://api.openai.com/v1").replace(/^(https?:\/\/)[^/@]*@/i, "$1");
  const summary = summarize(run.model, verdicts, now - run.startedAt);
  await saveScanned(
    ctx,
    run.departmentId,
    storedResult({
      ranAt: run.startedAt,
      server,
      wallMs: now - run.startedAt,
      models: [summary],
      scenarios: verdicts.map((verdict) => ({ id: verdict.id, kind: verdict.kind, about: BUNDLED_SCENARIOS.find((s) => s.id === verdict.id)?.about ?? "", verdicts: [{ model: run.model, ...verdict }] })),
    }),
  );
  await patchEvalRun(ctx, run._id, { status: "done", endedAt: now, index: run.total, current: undefined });
}

/** One step of an eval run; schedules the next while there is work left. */
export const advance = internalMutation({
  args: { evalRunId: v.id("evalRuns") },
  returns: v.null(),
  handler: async (ctx, { evalRunId }) => {
    const run = await ctx.db.get("evalRuns", evalRunId);
    if (run === null) return null;
    const current = run.current;
    if (current !== undefined && (run.status !== "running" || run.phase === "purge")) {
      // A cancelled scenario's runs finish first (within its step's time), so no run loses its rows under it.
      if ((await runsSettling(ctx, current.departmentId, EVAL_APP_LIMITS.runsPerScenario)).busy && Date.now() < current.deadline) {
        await ctx.scheduler.runAfter(EVAL_APP_LIMITS.pollMs, internal.evals.advance, { evalRunId });
        return null;
      }
      const department = await ctx.db.get("departments", current.departmentId);
      const gone = department === null || (await purgeEvalDepartment(ctx, department, EVAL_APP_LIMITS.purgeBatch));
      if (!gone) {
        await patchEvalRun(ctx, run._id, {});
        await ctx.scheduler.runAfter(0, internal.evals.advance, { evalRunId });
        return null;
      }
      if (run.status !== "running") {
        await patchEvalRun(ctx, run._id, { current: undefined });
        return null;
      }
      const next = run.index + 1;
      await patchEvalRun(ctx, run._id, { current: undefined, index: next, phase: "setup" });
      if (next >= run.total) await finish(ctx, { ...run, index: next, current: undefined });
      else await ctx.scheduler.runAfter(0, internal.evals.advance, { evalRunId });
      return null;
    }
    if (run.status !== "running") return null;
    if (run.phase === "setup" || current === undefined) {
      await setUp(ctx, run);
      await ctx.scheduler.runAfter(EVAL_APP_LIMITS.pollMs, internal.evals.advance, { evalRunId });
      return null;
    }
    await watch(ctx, run, current);
    await ctx.scheduler.runAfter(EVAL_APP_LIMITS.pollMs, internal.evals.advance, { evalRunId });
    return null;
  },
});

/** How many throwaway departments exist now (an operator's look, and the tests': none once every eval has ended). */
export const leftovers = internalQuery({
  args: {},
  returns: v.number(),
  handler: async (ctx) => (await evalDepartments(ctx, 1000)).length,
});

/** Ends an eval run that has stopped stepping (a step failed as a bug), and deletes throwaway departments no running eval is using. */
export const sweep = internalMutation({
  args: {},
  returns: v.null(),
  handler: async (ctx) => {
    const now = Date.now();
    for (const run of await runningEvals(ctx, 20)) {
      if (now - run.updatedAt < EVAL_APP_LIMITS.stalledMs) continue;
      await patchEvalRun(ctx, run._id, { status: "failed", endedAt: now, error: "The eval stopped making progress; its departments were deleted." });
    }
    for (const department of await evalDepartments(ctx, 20)) {
      const owner = await runningEval(ctx, department.evalOf!);
      if (owner?.current?.departmentId === department._id) continue;
      await purgeEvalDepartment(ctx, department, EVAL_APP_LIMITS.purgeBatch);
    }
    return null;
  },
});
