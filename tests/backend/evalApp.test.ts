/**
 * The delegation eval started from the app (convex/evals.ts): an admin
 * starts it on a running deployment, the scenarios run one at a time in
 * throwaway departments through the product's own run path, the result is
 * stored with its date and model; members and viewers cannot start or
 * cancel it, nor can anyone of another department; one at a time; the
 * throwaway departments are no one's and are deleted afterwards, cancelled
 * or not.
 */
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { startEvalBackend } from "../../tools/eval/runner";
import { BUNDLED_SCENARIOS } from "../../tools/eval/bundled";
import { flawedModels } from "./evalModels";
import { passwordRoute } from "./helpers";
import { scriptedModelEnv, startScriptedModel, type ScriptedModel } from "./scriptedModel";

let model: ScriptedModel;
let squad: Awaited<ReturnType<typeof startEvalBackend>>;
let admin: ConvexHttpClient;
let departmentId: Id<"departments">;
let otherId: Id<"departments">;
const clients: Record<"member" | "viewer" | "outsider", ConvexHttpClient> = {} as never;

async function signUp(email: string, inviteToken?: string): Promise<ConvexHttpClient> {
  const result = await passwordRoute(squad.siteUrl, { flow: "signUp", email, password: `${email} password`, name: email.split("@")[0], ...(inviteToken === undefined ? {} : { inviteToken }) });
  expect(result.status).toBe(200);
  const client = new ConvexHttpClient(squad.url);
  client.setAuth(result.body.token);
  return client;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not done within ${ms} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const leftovers = () => {
  const client = new ConvexHttpClient(squad.url);
  (client as unknown as { setAdminAuth(key: string): void }).setAdminAuth(squad.adminKey);
  return client.query(anyApi.evals.leftovers, {}) as Promise<number>;
};

beforeAll(async () => {
  model = await startScriptedModel(flawedModels);
  Object.assign(process.env, scriptedModelEnv(model), { MAESTRO_MODEL_MAX_RETRIES: "0" });
  squad = await startEvalBackend();
  admin = squad.owner;
  departmentId = await admin.mutation(api.departments.create, { name: "Real squad" });
  otherId = await admin.mutation(api.departments.create, { name: "Other squad" });
  for (const role of ["member", "viewer"] as const) {
    const { token } = await admin.mutation(api.invites.create, { departmentId, email: `${role}@example.com`, role });
    clients[role] = await signUp(`${role}@example.com`, token);
  }
  const { token } = await admin.mutation(api.invites.create, { departmentId: otherId, email: "outsider@example.com", role: "admin" });
  clients.outsider = await signUp("outsider@example.com", token);
}, 90_000);

afterAll(async () => {
  await squad?.stop();
  await model?.close();
});

describe("the eval from the app", () => {
  test("an admin starts it: n of the scenarios on Figures, the result with its date and model, no department left", async () => {
    const before = await admin.query(api.evals.status, { departmentId });
    expect(before).toMatchObject({ scenarios: BUNDLED_SCENARIOS.length, model: "scripted", problem: null, run: null });
    expect(before.estimate.modelCalls).toBe(4 * BUNDLED_SCENARIOS.length);

    const startedAt = Date.now();
    await admin.mutation(api.evals.start, { departmentId, only: ["single-writer", "followup-ask-again", "approval-urgent"] });
    // One at a time per department.
    await expect(admin.mutation(api.evals.start, { departmentId })).rejects.toThrow(/An eval is already running in this department/);
    // While it runs, its departments are no one's: not the admin's, not a member's.
    const running = await until(() => admin.query(api.evals.status, { departmentId }), (s) => s.run?.status === "running" && (s.run.done ?? 0) >= 1);
    expect(running.run).toMatchObject({ total: 3, model: "scripted", startedByName: "Eve" });
    expect(await leftovers()).toBeGreaterThanOrEqual(0);
    for (const client of [admin, clients.member, clients.viewer, clients.outsider]) {
      const names = (await client.query(api.departments.listMine, {})).map((d) => d.name);
      expect(names.some((name) => name.startsWith("Eval "))).toBe(false);
    }

    const done = await until(() => admin.query(api.evals.status, { departmentId }), (s) => s.run?.status !== "running");
    expect(done.run).toMatchObject({ status: "done", done: 3, total: 3 });
    const latest = (await clients.viewer.query(api.evals.latest, { departmentId }))!;
    expect(latest.ranAt).toBeGreaterThanOrEqual(startedAt - 1000);
    expect(latest.models.map((m) => [m.model, m.passed, m.scenarios])).toEqual([["scripted", 3, 3]]);
    expect(latest.scenarios.map((s) => [s.id, s.verdicts[0].pass])).toEqual([
      ["approval-urgent", true],
      ["followup-ask-again", true],
      ["single-writer", true],
    ]);
    // Through the product's own path: the lead was asked by the brain, with the roster and native tools.
    expect(model.requests.some((r) => /=== SQUAD ROSTER ===/.test(r.messages[0].content) && r.messages.some((m) => m.content.includes("Pricing FAQ")))).toBe(true);
    expect(await leftovers()).toBe(0);
    expect(await admin.query(api.evals.latest, { departmentId: otherId })).toBeNull();
  }, 120_000);

  test("cancelled: it stops, stores nothing, and its department is deleted", async () => {
    const previous = await admin.query(api.evals.latest, { departmentId });
    await admin.mutation(api.evals.start, { departmentId });
    await admin.mutation(api.evals.cancel, { departmentId });
    const status = await until(() => admin.query(api.evals.status, { departmentId }), (s) => s.run?.status !== "running");
    expect(status.run).toMatchObject({ status: "cancelled", total: BUNDLED_SCENARIOS.length });
    await until(leftovers, (n) => n === 0, 30_000);
    expect(await admin.query(api.evals.latest, { departmentId })).toEqual(previous);
    await expect(admin.mutation(api.evals.cancel, { departmentId })).rejects.toThrow(/No eval is running/);
  }, 60_000);

  test("members and viewers may not start or cancel it, nor an admin of another department; everyone in it reads the progress", async () => {
    for (const role of ["member", "viewer"] as const) {
      await expect(clients[role].mutation(api.evals.start, { departmentId })).rejects.toThrow(/FORBIDDEN|admin/i);
      await expect(clients[role].mutation(api.evals.cancel, { departmentId })).rejects.toThrow(/FORBIDDEN|admin/i);
      expect((await clients[role].query(api.evals.status, { departmentId })).run).toMatchObject({ status: "cancelled" });
    }
    await expect(clients.outsider.mutation(api.evals.start, { departmentId })).rejects.toThrow(/not a member|NOT_FOUND|FORBIDDEN/i);
    await expect(clients.outsider.query(api.evals.status, { departmentId })).rejects.toThrow(/not a member|NOT_FOUND|FORBIDDEN/i);
    await expect(admin.mutation(api.evals.start, { departmentId, only: ["no-such-scenario"] })).rejects.toThrow(/No scenario has that id or kind/);
    await expect(admin.mutation(api.evals.start, { departmentId, only: Array.from({ length: 100 }, () => "single") })).rejects.toThrow(/at most/);
  });
});
