/**
 * Costs: a department's model prices over the known ones, the totals its
 * runs' model calls add to (per task, agent, day and month), and its monthly
 * budget.
 */
import type { Doc, Id } from "../_generated/dataModel";
import { env, type MutationCtx, type QueryCtx } from "../_generated/server";
import { modelConfigFromEnv } from "../lib/modelConfig";
import { costMicros, dayOf, KNOWN_MODEL_PRICES, mergePrices, monthOf, PRICE_LIMITS, priceOf, type ModelPrice } from "../lib/pricing";

type ReadCtx = QueryCtx | MutationCtx;
export type CostScope = Doc<"costTotals">["scope"];

/** Most days the figures page charts. */
export const MAX_COST_DAYS = 90;

/** The department's price list: the known models (its own price where it set one), then its other models. */
export async function departmentPrices(ctx: ReadCtx, departmentId: Id<"departments">): Promise<ModelPrice[]> {
  const own = await ctx.db
    .query("modelPrices")
    .withIndex("by_department_and_model", (q) => q.eq("departmentId", departmentId))
    .take(PRICE_LIMITS.customModels + KNOWN_MODEL_PRICES.length);
  return mergePrices(own.map(({ model, inputPerMillion, outputPerMillion }) => ({ model, inputPerMillion, outputPerMillion })));
}

/** Sets the department's price for a model (a new row, or the one it had). */
export async function setModelPrice(ctx: MutationCtx, departmentId: Id<"departments">, price: ModelPrice): Promise<void> {
  const existing = await ctx.db
    .query("modelPrices")
    .withIndex("by_department_and_model", (q) => q.eq("departmentId", departmentId).eq("model", price.model))
    .unique();
  if (existing !== null) {
    await ctx.db.patch("modelPrices", existing._id, { inputPerMillion: price.inputPerMillion, outputPerMillion: price.outputPerMillion });
    return;
  }
  await ctx.db.insert("modelPrices", { departmentId, ...price });
}

/** How many models the department priced itself. */
export async function ownPriceCount(ctx: ReadCtx, departmentId: Id<"departments">): Promise<number> {
  const own = await ctx.db
    .query("modelPrices")
    .withIndex("by_department_and_model", (q) => q.eq("departmentId", departmentId))
    .take(PRICE_LIMITS.customModels + KNOWN_MODEL_PRICES.length + 1);
  return own.length;
}

async function totalRow(ctx: ReadCtx, departmentId: Id<"departments">, scope: CostScope, key: string) {
  return await ctx.db
    .query("costTotals")
    .withIndex("by_department_scope_and_key", (q) => q.eq("departmentId", departmentId).eq("scope", scope).eq("key", key))
    .unique();
}

/** What a task, an agent, a day or a month has cost so far, in micro-dollars. */
export async function costTotal(ctx: ReadCtx, departmentId: Id<"departments">, scope: CostScope, key: string): Promise<number> {
  return (await totalRow(ctx, departmentId, scope, key))?.micros ?? 0;
}

/** The spend of the month `at` falls in (UTC). */
export async function monthSpend(ctx: ReadCtx, departmentId: Id<"departments">, at: number): Promise<number> {
  return await costTotal(ctx, departmentId, "month", monthOf(at));
}

/** Days with a cost from `fromDay` to `toDay` (inclusive, "YYYY-MM-DD"), oldest first. */
export async function costByDay(ctx: ReadCtx, departmentId: Id<"departments">, fromDay: string, toDay: string): Promise<Array<{ day: string; micros: number }>> {
  const rows = await ctx.db
    .query("costTotals")
    .withIndex("by_department_scope_and_key", (q) => q.eq("departmentId", departmentId).eq("scope", "day").gte("key", fromDay).lte("key", toDay))
    .take(MAX_COST_DAYS);
  return rows.map((row) => ({ day: row.key, micros: row.micros }));
}

async function addToTotal(ctx: MutationCtx, departmentId: Id<"departments">, scope: CostScope, key: string, micros: number) {
  const row = await totalRow(ctx, departmentId, scope, key);
  if (row === null) await ctx.db.insert("costTotals", { departmentId, scope, key, micros });
  else await ctx.db.patch("costTotals", row._id, { micros: row.micros + micros });
}

/**
 * What one model call of `run` cost at the department's price for `model`
 * (nothing for a model without one), added to the task's, agent's, day's
 * and month's totals. Returns the call's cost.
 */
export async function chargeModelCall(ctx: MutationCtx, run: Doc<"runs">, model: string, promptTokens: number, completionTokens: number, at: number): Promise<number> {
  const agent = await ctx.db.get("agents", run.agentId);
  const price = priceOf(await departmentPrices(ctx, run.departmentId), pricedModel(model, agent?.model));
  const micros = price === null ? 0 : costMicros(price, promptTokens, completionTokens);
  if (micros === 0) return 0;
  await addToTotal(ctx, run.departmentId, "task", run.taskId, micros);
  await addToTotal(ctx, run.departmentId, "agent", run.agentId, micros);
  await addToTotal(ctx, run.departmentId, "day", dayOf(at), micros);
  await addToTotal(ctx, run.departmentId, "month", monthOf(at), micros);
  return micros;
}

/**
 * The model a call is priced as. With MAESTRO_MODEL_LABEL set, a reply names
 * the label ("demo model (offline, rule-based)"), not the model behind it:
 * that is the agent's model, else the configured default.
 */
function pricedModel(model: string, agentModel: string | undefined): string {
  try {
    const config = modelConfigFromEnv(env);
    if (config?.label !== undefined && model === config.label) return agentModel ?? config.defaultModel;
  } catch {
    // An unusable configuration: the call is priced by the name it reported.
  }
  return model;
}

/** Sets (or, with undefined, removes) the department's monthly budget. */
export async function setMonthlyBudget(ctx: MutationCtx, departmentId: Id<"departments">, micros: number | undefined): Promise<void> {
  await ctx.db.patch("departments", departmentId, { monthlyBudgetMicros: micros });
}
