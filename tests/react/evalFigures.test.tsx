// @vitest-environment jsdom
/** The Figures page's delegation eval: the newest stored result for everyone in the department; how to store one, for admins. */
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EvalResult } from "../../convex/validators";
import { EvalResultView } from "../../src/evals/EvalFigures";
import { FiguresPage } from "../../src/pages/FiguresPage";
import { WorkspaceContext, type Department } from "../../src/shell/workspace";
import { convex, resetConvex } from "./fakeConvex";

vi.mock("convex/react", () => import("./fakeConvex").then((m) => m.fakeConvexReact));
vi.mock("../../src/channels/MessagingStats", () => ({ MessagingStats: () => null }));
vi.mock("../../src/costs/CostFigures", () => ({ CostFigures: () => null }));

beforeEach(resetConvex);
afterEach(cleanup);

const figures = (model: string, passed: number, costMicros: number | null): EvalResult["models"][number] => ({
  model,
  scenarios: 2,
  passed,
  routing: { right: passed, total: 2 },
  splits: { right: 1, total: 1 },
  duplicates: 0,
  approvals: { right: 0, total: 0 },
  injections: { right: 1, total: 1 },
  invalidCalls: 2 - passed,
  promptTokens: 1200,
  completionTokens: 300,
  costMicros,
  modelCalls: 4,
  latencyP50Ms: 45.4,
  latencyP99Ms: 250,
  wallMs: 17_600,
});

const RESULT: EvalResult = {
  ranAt: Date.UTC(2026, 10, 28, 21, 0),
  server: "demo model (offline, rule-based)",
  wallMs: 35_000,
  models: [figures("maestro-demo", 2, 0), figures("my-llama", 1, null)],
  scenarios: [
    { id: "single-writer", kind: "single", verdicts: [{ model: "maestro-demo", pass: true, why: [] }, { model: "my-llama", pass: true, why: [] }] },
    {
      id: "typo-writer",
      kind: "typo",
      verdicts: [
        { model: "maestro-demo", pass: true, why: [] },
        { model: "my-llama", pass: false, why: ["missing: expected a delegation faq/refund → Writer"] },
      ],
    },
  ],
};

describe("the delegation eval on the Figures page", () => {
  it("shows when and against what it ran, each model's figures side by side, and each failure with why", () => {
    render(<EvalResultView result={RESULT} command="npm run eval" />);
    expect(screen.getByTestId("eval-when").textContent).toContain("against demo model (offline, rule-based) · maestro-demo, my-llama · 2 scenarios in 35.0 s");
    const table = screen.getByTestId("eval-summary");
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Figure", "maestro-demo", "my-llama"]);
    const row = (label: string) => within(table).getByRole("rowheader", { name: label }).closest("tr")!.querySelectorAll("td");
    expect([...row("scenarios passed")].map((c) => c.textContent)).toEqual(["2/2 (100%)", "1/2 (50%)"]);
    expect([...row("cost (price table)")].map((c) => c.textContent)).toEqual(["$0.00", "no price"]);
    expect([...row("model latency p50 / p99")].map((c) => c.textContent)).toEqual(["45 ms / 250 ms (4 calls)", "45 ms / 250 ms (4 calls)"]);
    expect(screen.getByTestId("eval-failures").textContent).toBe("FAIL my-llama · typo-writer (typo): missing: expected a delegation faq/refund → Writer");
  });

  it("says how to run one when none is stored: the command for admins, who runs it for everyone else", () => {
    render(<EvalResultView result={null} command="npm run eval -- --report-to http://127.0.0.1:3210 --department product" />);
    expect(screen.getByTestId("eval-figures").textContent).toContain("No eval has been stored for this department yet");
    expect(screen.getByText("npm run eval -- --report-to http://127.0.0.1:3210 --department product")).toBeTruthy();
    cleanup();
    render(<EvalResultView result={null} command={null} />);
    expect(screen.getByTestId("eval-figures").textContent).toBe("No eval has been stored for this department yet: an owner or admin runs one from here or from a terminal.");
  });

  it("is on the page for everyone in the department, read from evals.latest; only admins are told the command", () => {
    const page = (role: Department["role"]) => {
      const product: Department = { _id: "d1" as Department["_id"], name: "Product", slug: "product", role };
      return render(
        <WorkspaceContext.Provider value={{ departments: [product], department: product, fallback: product }}>
          <FiguresPage />
        </WorkspaceContext.Provider>,
      );
    };
    convex.queries.set("evals:latest", RESULT);
    for (const role of ["owner", "admin", "member", "viewer"] as const) {
      page(role);
      expect(screen.getByText("Delegation eval")).toBeTruthy();
      expect(screen.getByTestId("eval-summary")).toBeTruthy();
      cleanup();
    }
    convex.queries.set("evals:latest", null);
    for (const role of ["owner", "admin", "member", "viewer"] as const) {
      page(role);
      expect(screen.queryByText(/npm run eval -- --report-to .* --department product/) !== null).toBe(role === "owner" || role === "admin");
      cleanup();
    }
  });

  it("offers owners and admins to run it from here, saying first what it calls and may cost; everyone sees its progress, only admins Cancel", () => {
    const page = (role: Department["role"]) => {
      const product: Department = { _id: "d1" as Department["_id"], name: "Product", slug: "product", role };
      return render(
        <WorkspaceContext.Provider value={{ departments: [product], department: product, fallback: product }}>
          <FiguresPage />
        </WorkspaceContext.Provider>,
      );
    };
    const idle = { scenarios: 36, model: "gpt-4o-mini", problem: null, estimate: { modelCalls: 144, promptTokens: 172800, completionTokens: 8640, costMicros: 31104 }, run: null };
    convex.queries.set("evals:latest", null);
    convex.queries.set("evals:status", idle);
    for (const role of ["owner", "admin", "member", "viewer"] as const) {
      page(role);
      const button = screen.queryByRole("button", { name: "Run the eval" });
      expect(button !== null, role).toBe(role === "owner" || role === "admin");
      if (button !== null) {
        fireEvent.click(button);
        expect(screen.getByTestId("eval-confirm").textContent).toContain(
          "This runs 36 scenarios on gpt-4o-mini, each in a throwaway department: it calls the model at least 36 times, about 144 (about $0.031 by the price table).",
        );
        expect(screen.getByRole("button", { name: "Start the eval" })).toBeTruthy();
      }
      cleanup();
    }
    convex.queries.set("evals:status", { ...idle, run: { status: "running", done: 5, total: 36, model: "gpt-4o-mini", startedAt: 1, startedByName: "Ada" } });
    for (const role of ["admin", "member"] as const) {
      page(role);
      expect(screen.getByTestId("eval-progress").textContent).toContain("Eval running on gpt-4o-mini: 5 of 36 scenarios scored (started by Ada).");
      expect(screen.queryByRole("button", { name: "Cancel eval" }) !== null).toBe(role === "admin");
      expect(screen.queryByRole("button", { name: "Run the eval" })).toBeNull();
      cleanup();
    }
  });
});
