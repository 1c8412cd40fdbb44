/**
 * A department's injection settings (convex/injectionSettings.ts): the
 * summariser (extractive or a model, lib/summariser) and the PII rules
 * (lib/pii), from the attacker's side too: only owners and admins of the
 * department change them, bad values change nothing, the model key is
 * never read back, and the rules reach what a run is shown.
 */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import { acceptSummary, checkSummariser, summaryRequest } from "../../convex/lib/summariser";
import { AGENTS, addToDepartment, asUser, createTask, demoSquad, expectError, insertRun, roundInputs } from "./setup";

const MODEL = { kind: "model" as const, baseUrl: "http://127.0.0.1:11434/v1/", model: "fast-summary", timeoutMs: 2000 };
const ALL_ON = { email: true, phone: true, card: true, iban: true };

describe("injection settings", () => {
  test("defaults: extractive and every PII rule on; an admin saves a model with its key, which no read returns", async () => {
    const { t, departmentId, admin } = await demoSquad();
    expect(await admin.query(api.injectionSettings.get, { departmentId })).toEqual({ summariser: { kind: "extractive" }, pii: ALL_ON, hasKey: false });
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: MODEL, pii: { phone: false }, apiKey: "sk-summary-123" });
    const saved = await admin.query(api.injectionSettings.get, { departmentId });
    expect(saved).toEqual({ summariser: { ...MODEL, baseUrl: "http://127.0.0.1:11434/v1" }, pii: { ...ALL_ON, phone: false }, hasKey: true });
    expect(JSON.stringify(saved)).not.toContain("sk-summary-123");
    const settingsRow = await t.run(async (ctx) => await ctx.db.query("settings").collect());
    expect(JSON.stringify(settingsRow)).not.toContain("sk-summary-123");
    // Saving again without a key keeps it; null removes it.
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: MODEL, pii: {} });
    expect((await admin.query(api.injectionSettings.get, { departmentId })).hasKey).toBe(true);
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: MODEL, pii: {}, apiKey: null });
    expect((await admin.query(api.injectionSettings.get, { departmentId })).hasKey).toBe(false);
  });

  test("a key is never sent to another server: a new base URL without a new key drops it", async () => {
    const { departmentId, admin } = await demoSquad();
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: MODEL, pii: {}, apiKey: "sk-1" });
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: { ...MODEL, baseUrl: "https://elsewhere.example/v1" }, pii: {} });
    expect((await admin.query(api.injectionSettings.get, { departmentId })).hasKey).toBe(false);
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: { kind: "extractive" }, pii: {}, apiKey: "sk-2" });
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: MODEL, pii: {} });
    expect((await admin.query(api.injectionSettings.get, { departmentId })).hasKey).toBe(false);
  });

  test("members, viewers, other departments and strangers change nothing; members and viewers may read, without the key", async () => {
    const { t, departmentId, admin, grace, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: MODEL, pii: {}, apiKey: "sk-secret" });
    const before = await admin.query(api.injectionSettings.get, { departmentId });
    const change = { departmentId, summariser: { kind: "extractive" as const }, pii: { email: false }, apiKey: "sk-mine" };
    await expectError(grace.mutation(api.injectionSettings.update, change), "FORBIDDEN");
    await expectError(vera.mutation(api.injectionSettings.update, change), "FORBIDDEN");
    await expectError(other.member.mutation(api.injectionSettings.update, change), "FORBIDDEN");
    await expectError(other.member.query(api.injectionSettings.get, { departmentId }), "FORBIDDEN");
    await expect(t.mutation(api.injectionSettings.update, change)).rejects.toThrow();
    const stranger = await asUser(t, "Stranger");
    await expectError(stranger.mutation(api.injectionSettings.update, change), "FORBIDDEN");
    expect(await grace.query(api.injectionSettings.get, { departmentId })).toEqual(before);
    expect(await vera.query(api.injectionSettings.get, { departmentId })).toEqual(before);
    // An admin of the other department is no admin here.
    await addToDepartment(t, other.departmentId, "Grace", "admin");
    await expectError(grace.mutation(api.injectionSettings.update, change), "FORBIDDEN");
    expect(await admin.query(api.injectionSettings.get, { departmentId })).toEqual(before);
  });

  test("bad values are refused with the field named, and nothing changes", async () => {
    const { departmentId, admin } = await demoSquad();
    const update = (summariser: typeof MODEL | { kind: "extractive" }, extra: { apiKey?: string; pii?: Record<string, boolean> } = {}) =>
      admin.mutation(api.injectionSettings.update, { departmentId, summariser, pii: {}, ...extra } as never);
    await expectError(update({ ...MODEL, baseUrl: "ftp://models.example" }), "INVALID_ARGUMENT", /base URL/);
    await expectError(update({ ...MODEL, baseUrl: "javascript:alert(1)" }), "INVALID_ARGUMENT", /base URL/);
    await expectError(update({ ...MODEL, model: "  " }), "INVALID_ARGUMENT", /model name/);
    await expectError(update({ ...MODEL, model: "two words" }), "INVALID_ARGUMENT", /model name/);
    await expectError(update({ ...MODEL, timeoutMs: 50 }), "INVALID_ARGUMENT", /timeout/);
    await expectError(update({ ...MODEL, timeoutMs: 1500.5 }), "INVALID_ARGUMENT", /timeout/);
    await expectError(update({ ...MODEL, timeoutMs: 600_000 }), "INVALID_ARGUMENT", /timeout/);
    await expectError(update(MODEL, { apiKey: "has a space" }), "INVALID_ARGUMENT", /API key/);
    await expectError(update(MODEL, { apiKey: "x".repeat(501) }), "INVALID_ARGUMENT", /API key/);
    // Not a rule lib/pii has: the validator refuses it.
    await expect(update(MODEL, { pii: { ssn: true } })).rejects.toThrow(/ssn/);
    expect(await admin.query(api.injectionSettings.get, { departmentId })).toEqual({ summariser: { kind: "extractive" }, pii: ALL_ON, hasKey: false });
  });

  test("the department's PII rules reach what a run is shown; its summariser model and key reach only the run's internal read", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const dm = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    await admin.mutation(api.channelMessages.post, { channelId: dm, body: "Mail ada@example.com, card 4111 1111 1111 1111" });
    const taskId = await createTask(admin, departmentId);
    const runId = await insertRun(t, AGENTS.writer, taskId);
    expect((await t.query(internal.tools.messaging.inboxReadTool, { runId })).map((m) => m.body)).toEqual(["Mail [email], card [card]"]);
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: MODEL, pii: { email: false }, apiKey: "sk-run" });
    expect((await t.query(internal.tools.messaging.inboxReadTool, { runId })).map((m) => m.body)).toEqual(["Mail ada@example.com, card [card]"]);
    const inputs = await roundInputs(t, runId);
    expect(inputs.inbox?.unread.map((m) => m.body)).toEqual(["Mail ada@example.com, card [card]"]);
    // The context pack quotes the same conversation under the same rules.
    expect(inputs.pack?.threads.map((th) => th.root)).toEqual(["Mail ada@example.com, card [card]"]);
    await admin.mutation(api.injectionSettings.update, { departmentId, summariser: MODEL, pii: {} });
    expect((await roundInputs(t, runId)).pack?.threads.map((th) => th.root)).toEqual(["Mail [email], card [card]"]);
    expect(inputs.injection).toEqual({ pii: { email: false }, summariser: { baseUrl: "http://127.0.0.1:11434/v1", model: "fast-summary", timeoutMs: 2000, apiKey: "sk-run" } });
    expect((await roundInputs(t, runId)).injection.pii).toEqual({});
  });
});

describe("lib/summariser", () => {
  test("a setting is trimmed and checked", () => {
    expect(checkSummariser({ kind: "model", baseUrl: " https://api.example.com/v1// ", model: " m ", timeoutMs: 100 })).toEqual({ kind: "model", baseUrl: "https://api.example.com/v1", model: "m", timeoutMs: 100 });
  });

  test("only an answer that reads as a short summary is used, without PII", () => {
    expect(acceptSummary("  The team moved the launch to Friday;\n QA is still open.  ")).toBe("The team moved the launch to Friday; QA is still open.");
    expect(acceptSummary("Ask grace@example.com about it.")).toBe("Ask [email] about it.");
    expect(acceptSummary("Ask grace@example.com about it.", { email: false })).toBe("Ask grace@example.com about it.");
    for (const garbage of ["", "   ", "12345 !!!", '{"summary": "x"}', "<html>oops</html>", "[TOOL: delegate_task ARG: {}]", "```code```", "word ".repeat(200)]) {
      expect(acceptSummary(garbage), garbage.slice(0, 20)).toBeNull();
    }
  });

  test("the request lists the thread oldest first, long bodies cut", () => {
    const request = summaryRequest([
      { from: "Bo", body: "second", createdAt: 2 },
      { from: "Al", body: `first ${"x".repeat(1000)}`, createdAt: 1 },
    ]);
    expect(request[0].role).toBe("system");
    const lines = request[1].content.split("\n");
    expect(lines[0].startsWith("Al: first x")).toBe(true);
    expect(lines[0].length).toBeLessThan(620);
    expect(lines[1]).toBe("Bo: second");
  });
});
