/**
 * Bounds on a delegation eval's result (tools/eval) as a department keeps
 * it, and the check against them: the result comes from a script holding
 * the admin key, but it is shown to people, so it is bounded like anything
 * else they read.
 */
import { formatUsd } from "./pricing";
import type { EvalResult } from "../validators";

export const EVAL_RESULT_LIMITS = {
  models: 8,
  scenarios: 200,
  /** Reasons kept per verdict (the rest are in the JSON file). */
  whyLines: 5,
  textChars: 300,
} as const;

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
