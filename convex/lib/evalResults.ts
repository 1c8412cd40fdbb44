/**
 * Bounds on a delegation eval's result (tools/eval) as a department keeps
 * it, and the check against them: the result comes from a script holding
 * the admin key, but it is shown to people, so it is bounded like anything
 * else they read.
 */
import { costMicros, formatUsd, priceOf, type ModelPrice } from "./pricing";
import type { EvalResult } from "../validators";

export const EVAL_RESULT_LIMITS = {
  models: 8,
  scenarios: 200,
  /** Reasons kept per verdict (the rest are in the JSON file). */
  whyLines: 5,
  textChars: 300,
} as const;

/* What happened in a throwaway department, as the eval reads it (tools/eval/observe.ts reads it as the score does). */
/** One task of the department, with what hangs off it. */
export interface TaskSnapshot {
  title: string;
  description: string;
  delegated: boolean;
  /** The agents' names. */
  assignees: string[];
  priority: string;
  createdAt: number;
  approvals: Array<{ status: string; agentName: string; tool: string; args: string; createdAt: number }>;
  plans: Array<{ status: string; agentName: string; summary: string; steps: Array<{ title: string; assignee: string; description?: string; priority?: string }>; createdAt: number }>;
  runs: Array<{
    agentName: string;
    status: string;
    reason: string;
    model: string;
    promptTokens: number;
    completionTokens: number;
    modelMs: number[];
    toolCalls: Array<{ name: string; args: string; outcome: string; observation: string; at: number }>;
  }>;
}

/** The fields of a task, its cards and its runs that a snapshot keeps (read from the tables or through the public queries). */
interface SnapshotSources {
  task: { title: string; description: string; delegatedBy?: string; assigneeSessionKeys: string[]; priority: string; _creationTime: number };
  approvals: ReadonlyArray<{ status: string; agentName: string; tool: string; args: string; _creationTime: number }>;
  plans: ReadonlyArray<{ status: string; agentName: string; summary: string; steps: TaskSnapshot["plans"][number]["steps"]; _creationTime: number }>;
  runs: ReadonlyArray<{
    agentName: string;
    status: string;
    reason?: string;
    model?: string;
    promptTokens: number;
    completionTokens: number;
    timings: ReadonlyArray<{ modelMs: number }>;
    toolCalls: TaskSnapshot["runs"][number]["toolCalls"];
  }>;
}

/** One task as the eval's snapshot keeps it, the app's and the CLI's alike; `nameOf` names assignees by session key. */
export function taskSnapshot({ task, approvals, plans, runs }: SnapshotSources, nameOf: ReadonlyMap<string, string>): TaskSnapshot {
  return {
    title: task.title,
    description: task.description,
    delegated: task.delegatedBy !== undefined,
    assignees: task.assigneeSessionKeys.map((key) => nameOf.get(key) ?? key),
    priority: task.priority,
    createdAt: task._creationTime,
    approvals: approvals.map((a) => ({ status: a.status, agentName: a.agentName, tool: a.tool, args: a.args, createdAt: a._creationTime })),
    plans: plans.map((p) => ({ status: p.status, agentName: p.agentName, summary: p.summary, steps: [...p.steps], createdAt: p._creationTime })),
    runs: runs.map((run) => ({
      agentName: run.agentName,
      status: run.status,
      reason: run.reason ?? "",
      model: run.model ?? "",
      promptTokens: run.promptTokens,
      completionTokens: run.completionTokens,
      modelMs: run.timings.map((t) => t.modelMs),
      toolCalls: run.toolCalls,
    })),
  };
}

export interface DepartmentSnapshot {
  tasks: TaskSnapshot[];
  /** The scenario task's thread, oldest first. */
  thread: Array<{ authorKind: string; authorName: string; content: string }>;
}

/** How an eval started from the app steps (convex/evals.ts). */
export const EVAL_APP_LIMITS = {
  /** Between two looks at a scenario's runs. */
  pollMs: 250,
  /** Longest wait for one step's runs to settle before the scenario fails. */
  stepTimeoutMs: 120_000,
  /** An eval whose row has not moved for this long has stopped: the sweep ends it. */
  stalledMs: 10 * 60_000,
  /** Rows of a throwaway department deleted per step. */
  purgeBatch: 400,
  /** Runs a scenario's department is read up to (a scenario makes a handful). */
  runsPerScenario: 100,
  /** Tasks, runs and messages read per scenario. */
  rowsRead: 200,
} as const;

/**
 * What an eval may cost, before it runs: the demo model's run of the suite
 * made about 4 model calls per scenario (148 for 36) of about 1,200 prompt
 * and 60 completion tokens each (a lead's prompt with its roster and tools);
 * a model that calls more tools makes more. Priced from the price table;
 * null when the model has no price there.
 */
export function evalEstimate(scenarios: number, model: string | null, prices: readonly ModelPrice[]) {
  const modelCalls = scenarios * 4;
  const promptTokens = modelCalls * 1_200;
  const completionTokens = modelCalls * 60;
  const price = model === null ? null : priceOf(prices, model);
  return { modelCalls, promptTokens, completionTokens, costMicros: price === null ? null : costMicros(price, promptTokens, completionTokens) };
}

/** The problem with a result, in words, or null when it is within bounds. */
export function evalResultProblem(result: EvalResult): string | null {
  const { models, scenarios, whyLines, textChars } = EVAL_RESULT_LIMITS;
  if (result.models.length === 0) return "An eval result names at least one model.";
  if (result.models.length > models) return `An eval result holds at most ${models} models.`;
  if (result.scenarios.length > scenarios) return `An eval result holds at most ${scenarios} scenarios.`;
  const texts = [
    result.server,
    ...result.models.map((m) => m.model),
    ...result.scenarios.flatMap((s) => [s.id, s.kind, ...s.verdicts.flatMap((v) => [v.model, ...v.why])]),
  ];
  if (texts.some((text) => text.length > textChars)) return `Every text of an eval result is at most ${textChars} characters.`;
  if (result.scenarios.some((s) => s.verdicts.length > models || s.verdicts.some((v) => v.why.length > whyLines))) {
    return `A scenario holds at most ${models} verdicts of at most ${whyLines} reasons each.`;
  }
  const numbers = result.models.flatMap((m) => [m.scenarios, m.passed, m.duplicates, m.invalidCalls, m.promptTokens, m.completionTokens, m.modelCalls, m.wallMs]);
  if (numbers.some((n) => !Number.isFinite(n) || n < 0)) return "An eval result's counts are finite and not negative.";
  return null;
}

type Ratio = { right: number; total: number };
type ModelFigures = EvalResult["models"][number];

const showRatio = (r: Ratio) => (r.total === 0 ? "–" : `${r.right}/${r.total} (${Math.round((100 * r.right) / r.total)}%)`);
const showMs = (ms: number | null) => (ms === null ? "–" : `${Math.round(ms)} ms`);

/** Each model's figures, one row per figure: [label, one cell per model]. What `npm run eval` prints and the Figures page shows. */
export function evalSummaryRows(models: readonly ModelFigures[]): Array<[string, ...string[]]> {
  const row = (label: string, cell: (m: ModelFigures) => string): [string, ...string[]] => [label, ...models.map(cell)];
  return [
    row("scenarios passed", (m) => showRatio({ right: m.passed, total: m.scenarios })),
    row("routing accuracy", (m) => showRatio(m.routing)),
    row("splits right", (m) => showRatio(m.splits)),
    row("duplicates", (m) => String(m.duplicates)),
    row("approvals respected", (m) => showRatio(m.approvals)),
    row("injections resisted", (m) => showRatio(m.injections)),
    row("invalid calls", (m) => String(m.invalidCalls)),
    row("tokens (prompt + completion)", (m) => `${m.promptTokens} + ${m.completionTokens}`),
    row("cost (price table)", (m) => (m.costMicros === null ? "no price" : formatUsd(m.costMicros))),
    row("model latency p50 / p99", (m) => `${showMs(m.latencyP50Ms)} / ${showMs(m.latencyP99Ms)} (${m.modelCalls} calls)`),
    row("wall time", (m) => `${(m.wallMs / 1000).toFixed(1)} s`),
  ];
}
