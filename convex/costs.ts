/**
 * What agents cost: the department's price table (admins edit it), its
 * monthly budget, what a task or an agent has cost and the cost per day.
 */
import { v } from "convex/values";
import { departmentMutation, departmentQuery, taskQuery } from "./functions";
import { MaestroError } from "./lib/errors";
import { dollarsToMicros, KNOWN_MODEL_PRICES, PRICE_LIMITS } from "./lib/pricing";
import { cleanText } from "./lib/validate";
import { costByDay, costTotal, departmentPrices, monthSpend, ownPriceCount, setModelPrice, setMonthlyBudget } from "./records/costs";

/** Days the figures page charts, ending today. */
export const COST_DAYS_SHOWN = 30;

const vPrice = v.object({ model: v.string(), inputPerMillion: v.number(), outputPerMillion: v.number() });
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function checkPerMillion(field: string, value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > PRICE_LIMITS.maxPerMillion) {
    throw new MaestroError("INVALID_ARGUMENT", `${field} must be a number of dollars from 0 to ${PRICE_LIMITS.maxPerMillion} per million tokens.`);
  }
  return value;
}

/** The day `days - 1` before `day` ("YYYY-MM-DD"). */
function daysBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The figures page's costs: the price table, the monthly budget and what
 * this month has spent, and the cost of each of the last 30 days.
 * `today` is the caller's UTC day ("2026-11-26"): a query reads no clock.
 */
export const summary = departmentQuery({
  args: { today: v.string() },
  returns: v.object({
    prices: v.array(vPrice),
    monthlyBudgetMicros: v.union(v.number(), v.null()),
    monthSpentMicros: v.number(),
    days: v.array(v.object({ day: v.string(), micros: v.number() })),
  }),
  handler: async (ctx, { departmentId, today }) => {
    if (!DAY.test(today) || Number.isNaN(Date.parse(`${today}T00:00:00Z`))) {
      throw new MaestroError("INVALID_ARGUMENT", "today must be a day written YYYY-MM-DD.");
    }
    return {
      prices: await departmentPrices(ctx, departmentId),
      monthlyBudgetMicros: ctx.department.monthlyBudgetMicros ?? null,
      monthSpentMicros: await monthSpend(ctx, departmentId, Date.parse(`${today}T12:00:00Z`)),
      days: await costByDay(ctx, departmentId, daysBefore(today, COST_DAYS_SHOWN), today),
    };
  },
});

/** Sets the department's price of a model (a known one or its own), in dollars per million tokens. Admins only. */
export const setPrice = departmentMutation({
  role: "admin",
  args: { price: vPrice },
  returns: v.null(),
  handler: async (ctx, { departmentId, price }) => {
    const model = cleanText("A model name", price.model, PRICE_LIMITS.modelChars);
    const inputPerMillion = checkPerMillion("The input price", price.inputPerMillion);
    const outputPerMillion = checkPerMillion("The output price", price.outputPerMillion);
    const known = KNOWN_MODEL_PRICES.some((p) => p.model === model);
    const priced = (await departmentPrices(ctx, departmentId)).some((p) => p.model === model);
    if (!known && !priced && (await ownPriceCount(ctx, departmentId)) >= PRICE_LIMITS.customModels + KNOWN_MODEL_PRICES.length) {
      throw new MaestroError("INVALID_ARGUMENT", `A department prices at most ${PRICE_LIMITS.customModels} models of its own.`);
    }
    await setModelPrice(ctx, departmentId, { model, inputPerMillion, outputPerMillion });
    return null;
  },
});

/** Sets the monthly budget in dollars (null: no budget). New runs stop once the month's spend reaches it. Admins only. */
export const setBudget = departmentMutation({
  role: "admin",
  args: { monthlyBudgetUsd: v.union(v.number(), v.null()) },
  returns: v.null(),
  handler: async (ctx, { departmentId, monthlyBudgetUsd }) => {
    if (monthlyBudgetUsd !== null && (!Number.isFinite(monthlyBudgetUsd) || monthlyBudgetUsd < 0 || monthlyBudgetUsd > PRICE_LIMITS.maxMonthlyBudget)) {
      throw new MaestroError("INVALID_ARGUMENT", `The monthly budget must be from $0 to $${PRICE_LIMITS.maxMonthlyBudget}.`);
    }
    await setMonthlyBudget(ctx, departmentId, monthlyBudgetUsd === null ? undefined : dollarsToMicros(monthlyBudgetUsd));
    return null;
  },
});

/** What a task's runs have cost so far, in micro-dollars. */
export const ofTask = taskQuery({
  args: {},
  returns: v.number(),
  handler: async (ctx, { taskId }) => await costTotal(ctx, ctx.task.departmentId, "task", taskId),
});
