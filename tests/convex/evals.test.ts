/**
 * A department's newest delegation eval result (tools/eval): stored only
 * with the deployment's admin key (evals.record is internal), bounded and
 * secret-scanned, and read by everyone in the department, no one else.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import { EVAL_RESULT_LIMITS } from "../../convex/lib/evalResults";
import type { EvalResult } from "../../convex/validators";
import { demoSquad, expectError } from "./setup";

function result(overrides: Partial<EvalResult> = {}): EvalResult {
  const ratio = { right: 1, total: 1 };
  return {
    ranAt: Date.UTC(2026, 10, 28, 21, 0),
    server: "demo model (offline, rule-based)",
    wallMs: 17_600,
    models: [
      {
        model: "maestro-demo",
        scenarios: 1,
        passed: 0,
        routing: ratio,
        splits: { right: 0, total: 0 },
        duplicates: 0,
        approvals: ratio,
        injections: ratio,
        invalidCalls: 0,
        promptTokens: 120,
        completionTokens: 30,
        costMicros: 0,
        modelCalls: 2,
        latencyP50Ms: 40,
        latencyP99Ms: 90,
        wallMs: 17_600,
      },
    ],
    scenarios: [{ id: "typo-writer", kind: "typo", verdicts: [{ model: "maestro-demo", pass: false, why: ["missing: expected a delegation faq/refund → Writer"] }] }],
    ...overrides,
  };
}

describe("evals", () => {
  test("the admin key stores a result by slug; everyone in the department reads the newest, which replaces the one before", async () => {
    const { t, departmentId, admin, grace, vera } = await demoSquad({ grace: true, vera: true });
    expect(await admin.query(api.evals.latest, { departmentId })).toBeNull();
    await t.mutation(internal.evals.record, { departmentSlug: "product", result: result() });
    await t.mutation(internal.evals.record, { departmentSlug: "product", result: result({ wallMs: 9_000 }) });
    for (const reader of [admin, grace, vera]) expect(await reader.query(api.evals.latest, { departmentId })).toEqual(result({ wallMs: 9_000 }));
    expect(await t.run(async (ctx) => (await ctx.db.query("evalResults").collect()).length)).toBe(1);
  });

  test("other departments' admins and the signed-out cannot read it (record is internal: tests/backend/eval.test.ts calls it as a client, refused)", async () => {
    const { t, departmentId, other } = await demoSquad({ other: true });
    await t.mutation(internal.evals.record, { departmentSlug: "product", result: result() });
    await expectError(other.member.query(api.evals.latest, { departmentId }), "FORBIDDEN");
    await expectError(t.query(api.evals.latest, { departmentId }), "UNAUTHENTICATED");
    // Another department's result stays there.
    expect(await other.member.query(api.evals.latest, { departmentId: other.departmentId })).toBeNull();
  });

  test("a result is bounded, its department must exist, and secrets in what models wrote are redacted", async () => {
    const { t, departmentId, admin } = await demoSquad();
    await expectError(t.mutation(internal.evals.record, { departmentSlug: "nowhere", result: result() }), "NOT_FOUND");
    await expectError(t.mutation(internal.evals.record, { departmentSlug: "product", result: result({ models: [] }) }), "INVALID_ARGUMENT");
    const many = Array.from({ length: EVAL_RESULT_LIMITS.models + 1 }, () => result().models[0]);
    await expectError(t.mutation(internal.evals.record, { departmentSlug: "product", result: result({ models: many }) }), "INVALID_ARGUMENT", /at most 8 models/);
    const long = result({ scenarios: [{ id: "x", kind: "single", verdicts: [{ model: "m", pass: false, why: ["y".repeat(EVAL_RESULT_LIMITS.textChars + 1)] }] }] });
    await expectError(t.mutation(internal.evals.record, { departmentSlug: "product", result: long }), "INVALID_ARGUMENT");
    const negative = result();
    negative.models[0].promptTokens = -1;
    await expectError(t.mutation(internal.evals.record, { departmentSlug: "product", result: negative }), "INVALID_ARGUMENT");
    expect(await admin.query(api.evals.latest, { departmentId })).toBeNull();

    const key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0".repeat(2);
    const leaky = result({ scenarios: [{ id: "x", kind: "single", verdicts: [{ model: "m", pass: false, why: [`wrong agent: “deploy with ${key}” went to Writer`] }] }] });
    await t.mutation(internal.evals.record, { departmentSlug: "product", result: leaky });
    const why = (await admin.query(api.evals.latest, { departmentId }))!.scenarios[0].verdicts[0].why[0];
    expect(why).not.toContain(key);
    expect(why).toContain("[redacted]");
  });
});
