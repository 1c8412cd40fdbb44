// The figures page's costs: spend per day, this month against the budget, and the price table (admins edit both).
import { useMutation, useQuery } from "convex/react";
import { useState } from "react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { formatUsd, type ModelPrice } from "../../convex/lib/pricing";
import { Button } from "../components/ui/Button";
import { CONTROL_CLASS, onSubmitted } from "../components/ui/Field";
import { Skeleton } from "../components/ui/Skeleton";
import { userMessage } from "../lib/errors";

const COST = "#8b5cf6";
/** Until the container measures itself (and in tests, where nothing has a size). */
const INITIAL_SIZE = { width: 640, height: 200 };

type Props = { departmentId: Id<"departments">; canEdit: boolean };

/** "2026-11-26": the caller's UTC day, fixed when the page opens (a query reads no clock). */
function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

export function CostFigures({ departmentId, canEdit }: Props) {
  const [today] = useState(todayUtc);
  const summary = useQuery(api.costs.summary, { departmentId, today });
  if (summary === undefined) return <Skeleton className="h-48" />;
  const days = summary.days.map((d) => ({ label: d.day.slice(5), dollars: d.micros / 1_000_000, micros: d.micros }));
  const budget = summary.monthlyBudgetMicros;
  const reached = budget !== null && summary.monthSpentMicros >= budget;
  return (
    <section data-testid="cost-figures" aria-label="Costs" className="flex flex-col gap-5 text-sm">
      <div className="flex flex-wrap gap-6">
        <div data-testid="month-spend">
          <p className="text-xs text-slate-500 dark:text-slate-400">This month</p>
          <p className="text-lg font-semibold text-slate-900 tabular-nums dark:text-slate-100">{formatUsd(summary.monthSpentMicros)}</p>
        </div>
        <div>
          <p className="text-xs text-slate-500 dark:text-slate-400">Monthly budget</p>
          <p className={reached ? "text-lg font-semibold text-rose-700 dark:text-rose-400" : "text-lg font-semibold text-slate-900 dark:text-slate-100"}>
            {budget === null ? "None" : formatUsd(budget)}
            {reached && <span className="ml-2 text-xs font-normal">reached: new runs are not started</span>}
          </p>
        </div>
      </div>
      {canEdit && <BudgetForm departmentId={departmentId} budgetMicros={budget} />}

      <figure data-testid="chart-cost-per-day" className="flex flex-col gap-2">
        <figcaption className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">Cost per day (UTC)</figcaption>
        {days.length === 0 ? (
          <p className="text-xs text-slate-500 dark:text-slate-400">No model calls with a price in the last 30 days.</p>
        ) : (
          <div className="h-52 w-full">
            <ResponsiveContainer width="100%" height="100%" initialDimension={INITIAL_SIZE}>
              <BarChart data={days} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="label" tick={{ fontSize: 11 }} />
                <YAxis tick={{ fontSize: 11 }} width={64} tickFormatter={(value: number) => formatUsd(value * 1_000_000)} />
                <Tooltip formatter={(_value, _name, item) => formatUsd((item.payload as { micros: number }).micros)} />
                <Bar dataKey="dollars" name="Cost" fill={COST} isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </div>
        )}
      </figure>

      <PriceTable departmentId={departmentId} prices={summary.prices} canEdit={canEdit} />
    </section>
  );
}

function BudgetForm({ departmentId, budgetMicros }: { departmentId: Id<"departments">; budgetMicros: number | null }) {
  const setBudget = useMutation(api.costs.setBudget);
  const [value, setValue] = useState(budgetMicros === null ? "" : String(budgetMicros / 1_000_000));
  const [error, setError] = useState<string | null>(null);
  const save = (monthlyBudgetUsd: number | null) => {
    setError(null);
    setBudget({ departmentId, monthlyBudgetUsd }).catch((e: unknown) => setError(userMessage(e)));
  };
  return (
    <form
      aria-label="Monthly budget"
      className="flex flex-wrap items-end gap-2"
      onSubmit={onSubmitted(() => (value.trim() === "" ? save(null) : save(Number(value))))}
    >
      <label className="flex w-56 flex-col gap-1 text-xs text-slate-600 dark:text-slate-300">
        Monthly budget (US$, empty for none)
        <input className={CONTROL_CLASS} inputMode="decimal" value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      <Button type="submit" variant="secondary">
        Save budget
      </Button>
      <FormError error={error} />
    </form>
  );
}

function PriceTable({ departmentId, prices, canEdit }: { departmentId: Id<"departments">; prices: ModelPrice[]; canEdit: boolean }) {
  return (
    <figure data-testid="price-table" className="flex flex-col gap-2">
      <figcaption className="text-xs font-semibold tracking-wide text-slate-500 uppercase dark:text-slate-400">Model prices (US$ per million tokens)</figcaption>
      <table className="w-full max-w-xl text-left text-sm">
        <thead className="text-xs text-slate-500 dark:text-slate-400">
          <tr>
            <th className="py-1 font-medium">Model</th>
            <th className="py-1 text-right font-medium">Input</th>
            <th className="py-1 text-right font-medium">Output</th>
            {canEdit && <th className="py-1" />}
          </tr>
        </thead>
        <tbody className="text-slate-800 dark:text-slate-200">
          {prices.map((price) => (
            <PriceRow key={price.model} departmentId={departmentId} price={price} canEdit={canEdit} />
          ))}
        </tbody>
      </table>
      {canEdit && <NewPrice departmentId={departmentId} />}
    </figure>
  );
}

function PriceRow({ departmentId, price, canEdit }: { departmentId: Id<"departments">; price: ModelPrice; canEdit: boolean }) {
  const setPrice = useMutation(api.costs.setPrice);
  const [input, setInput] = useState(String(price.inputPerMillion));
  const [output, setOutput] = useState(String(price.outputPerMillion));
  const [error, setError] = useState<string | null>(null);
  if (!canEdit) {
    return (
      <tr className="border-t border-slate-100 dark:border-slate-800">
        <td className="py-1">{price.model}</td>
        <td className="py-1 text-right tabular-nums">${price.inputPerMillion}</td>
        <td className="py-1 text-right tabular-nums">${price.outputPerMillion}</td>
      </tr>
    );
  }
  const changed = input !== String(price.inputPerMillion) || output !== String(price.outputPerMillion);
  const save = () => {
    setError(null);
    setPrice({ departmentId, price: { model: price.model, inputPerMillion: Number(input), outputPerMillion: Number(output) } }).catch((e: unknown) =>
      setError(userMessage(e)),
    );
  };
  return (
    <tr className="border-t border-slate-100 dark:border-slate-800">
      <td className="py-1">
        {price.model}
        <FormError error={error} />
      </td>
      <td className="py-1">
        <div className="ml-auto w-24">
          <input aria-label={`${price.model} input price`} className={`${CONTROL_CLASS} text-right`} inputMode="decimal" value={input} onChange={(e) => setInput(e.target.value)} />
        </div>
      </td>
      <td className="py-1">
        <div className="ml-auto w-24">
          <input aria-label={`${price.model} output price`} className={`${CONTROL_CLASS} text-right`} inputMode="decimal" value={output} onChange={(e) => setOutput(e.target.value)} />
        </div>
      </td>
      <td className="py-1 pl-2">
        <Button variant="ghost" className="px-2 py-1 text-xs" disabled={!changed} onClick={save}>
          Save
        </Button>
      </td>
    </tr>
  );
}

function NewPrice({ departmentId }: { departmentId: Id<"departments"> }) {
  const setPrice = useMutation(api.costs.setPrice);
  const [model, setModel] = useState("");
  const [input, setInput] = useState("");
  const [output, setOutput] = useState("");
  const [error, setError] = useState<string | null>(null);
  const add = () => {
    setError(null);
    setPrice({ departmentId, price: { model, inputPerMillion: Number(input), outputPerMillion: Number(output) } })
      .then(() => {
        setModel("");
        setInput("");
        setOutput("");
      })
      .catch((e: unknown) => setError(userMessage(e)));
  };
  return (
    <form aria-label="Price another model" className="flex flex-wrap items-end gap-2" onSubmit={onSubmitted(add)}>
      <div className="w-48">
        <input aria-label="Model" placeholder="Model name" className={CONTROL_CLASS} value={model} onChange={(e) => setModel(e.target.value)} />
      </div>
      <div className="w-24">
        <input aria-label="Input price" placeholder="Input $/M" inputMode="decimal" className={CONTROL_CLASS} value={input} onChange={(e) => setInput(e.target.value)} />
      </div>
      <div className="w-24">
        <input aria-label="Output price" placeholder="Output $/M" inputMode="decimal" className={CONTROL_CLASS} value={output} onChange={(e) => setOutput(e.target.value)} />
      </div>
      <Button type="submit" variant="secondary" disabled={model.trim() === ""}>
        Add price
      </Button>
      <FormError error={error} />
    </form>
  );
}

/** A form's refusal, beside the form that was refused. */
function FormError({ error }: { error: string | null }) {
  if (error === null) return null;
  return (
    <p role="alert" className="text-xs text-rose-700 dark:text-rose-400">
      {error}
    </p>
  );
}
