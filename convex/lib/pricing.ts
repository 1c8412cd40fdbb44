/**
 * What agents' model calls cost: a price per model (US dollars per million
 * input and output tokens), the department's own prices over the known
 * ones, and the monthly budget that stops new runs once spent. Amounts are
 * kept in micro-dollars (whole numbers), so sums never drift.
 */

export interface ModelPrice {
  model: string;
  /** US dollars per million prompt (input) tokens. */
  inputPerMillion: number;
  /** US dollars per million completion (output) tokens. */
  outputPerMillion: number;
}

/** The offline demo model (tools/demo-model): free. */
export const DEMO_MODEL_ID = "maestro-demo";

/** OpenAI's list prices (standard tier, per million tokens) of the models agents are likely to name; admins may change any. */
export const KNOWN_MODEL_PRICES: readonly ModelPrice[] = [
  { model: DEMO_MODEL_ID, inputPerMillion: 0, outputPerMillion: 0 },
  { model: "gpt-5", inputPerMillion: 1.25, outputPerMillion: 10 },
  { model: "gpt-5-mini", inputPerMillion: 0.25, outputPerMillion: 2 },
  { model: "gpt-5-nano", inputPerMillion: 0.05, outputPerMillion: 0.4 },
  { model: "gpt-4.1", inputPerMillion: 2, outputPerMillion: 8 },
  { model: "gpt-4.1-mini", inputPerMillion: 0.4, outputPerMillion: 1.6 },
  { model: "gpt-4.1-nano", inputPerMillion: 0.1, outputPerMillion: 0.4 },
  { model: "gpt-4o", inputPerMillion: 2.5, outputPerMillion: 10 },
  { model: "gpt-4o-mini", inputPerMillion: 0.15, outputPerMillion: 0.6 },
  { model: "o3", inputPerMillion: 2, outputPerMillion: 8 },
  { model: "o4-mini", inputPerMillion: 1.1, outputPerMillion: 4.4 },
  { model: "o3-mini", inputPerMillion: 1.1, outputPerMillion: 4.4 },
];

/** Bounds on what an admin may enter. */
export const PRICE_LIMITS = {
  modelChars: 120,
  /** US dollars per million tokens. */
  maxPerMillion: 1000,
  /** Models with a price of the department's own (beside the known ones). */
  customModels: 50,
  /** US dollars per month. */
  maxMonthlyBudget: 1_000_000,
} as const;

const MICROS_PER_DOLLAR = 1_000_000;

/** The cost of a call, in micro-dollars: tokens × price per million tokens. */
export function costMicros(price: Pick<ModelPrice, "inputPerMillion" | "outputPerMillion">, promptTokens: number, completionTokens: number): number {
  // $/million tokens × tokens = micro-dollars.
  return Math.round(price.inputPerMillion * promptTokens + price.outputPerMillion * completionTokens);
}

/** A price list: the known models, each replaced by the department's own price where it set one, then its other models. */
export function mergePrices(own: readonly ModelPrice[]): ModelPrice[] {
  const byModel = new Map(own.map((price) => [price.model, price]));
  const merged = KNOWN_MODEL_PRICES.map((known) => byModel.get(known.model) ?? known);
  const known = new Set(KNOWN_MODEL_PRICES.map((price) => price.model));
  return [...merged, ...own.filter((price) => !known.has(price.model)).sort((a, b) => a.model.localeCompare(b.model))];
}

/** The price of `model` from a merged list; a model with no price costs nothing (and the price table says so). */
export function priceOf(prices: readonly ModelPrice[], model: string): ModelPrice | null {
  return prices.find((price) => price.model === model) ?? null;
}

/** The UTC day ("2026-11-26") and month ("2026-11") a time falls in: what costs are totalled by. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** Dollars, to the cent (to the tenth of a cent under a dollar, so small runs do not all read $0.00). */
export function formatUsd(micros: number): string {
  const dollars = micros / MICROS_PER_DOLLAR;
  if (dollars !== 0 && Math.abs(dollars) < 1) return `$${dollars.toFixed(dollars < 0.01 ? 4 : 3)}`;
  return `$${dollars.toFixed(2)}`;
}

export function dollarsToMicros(dollars: number): number {
  return Math.round(dollars * MICROS_PER_DOLLAR);
}

/** The thread note of a run the monthly budget refused. */
export function budgetNote(agentName: string, budgetMicros: number, spentMicros: number): string {
  return (
    `${agentName} did not start: this department's monthly budget of ${formatUsd(budgetMicros)} is spent ` +
    `(${formatUsd(spentMicros)} so far this month). An admin can raise it on the Figures page.`
  );
}
