import { createHmac } from "node:crypto";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { api } from "../../convex/_generated/api";
import { checkWebhookUrl, retryDelayMs, shouldRetry, WEBHOOK_MAX_ATTEMPTS } from "../../convex/lib/webhooks";
import { addToDepartment, demoSquad, expectError, type TestConvex } from "./setup";

type Call = { url: string; headers: Record<string, string>; body: string };

let calls: Call[] = [];
let answers: Array<{ status: number; retryAfter?: string } | Error> = [];

beforeEach(() => {
  vi.useFakeTimers();
  calls = [];
  answers = [];
  vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
    calls.push({ url, headers: init.headers as Record<string, string>, body: init.body as string });
    const answer = answers.shift() ?? { status: 200 };
    if (answer instanceof Error) throw answer;
    return new Response("ok", { status: answer.status, headers: answer.retryAfter ? { "Retry-After": answer.retryAfter } : {} });
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

async function deliverAll(t: TestConvex) {
  await t.finishAllScheduledFunctions(vi.runAllTimers);
}

async function withWebhook() {
  const { t, departmentId, admin } = await demoSquad();
  vi.stubEnv("MAESTRO_WEBHOOK_ALLOW_PRIVATE", "1");
  const { secret } = await admin.mutation(api.webhooks.set, { departmentId, url: "http://127.0.0.1:9/hook" });
  return { t, departmentId, admin, secret };
}

async function deliveries(t: TestConvex) {
  return await t.run(async (ctx) => await ctx.db.query("webhookDeliveries").collect());
}

describe("webhook rules", () => {
  test("URLs: http(s) only, no credentials, no private or loopback hosts unless allowed", () => {
    expect(checkWebhookUrl("https://hooks.example.com/maestro", false)).toBe("https://hooks.example.com/maestro");
    for (const bad of ["ftp://x.example", "not a url", "https://user:pw@x.example/", "http://localhost:3000/", "http://10.0.0.5/", "http://192.168.1.1/", "http://169.254.169.254/latest", "http://[::1]/"]) {
      expect(() => checkWebhookUrl(bad, false), bad).toThrow();
    }
    expect(checkWebhookUrl("http://127.0.0.1:9/hook", true)).toBe("http://127.0.0.1:9/hook");
  });

  test("retries: 5xx, 408, 429 and network errors; backoff doubles, Retry-After can lengthen it, capped", () => {
    expect([500, 503, 408, 429, null].map(shouldRetry)).toEqual([true, true, true, true, true]);
    expect([400, 401, 404, 410].map(shouldRetry)).toEqual([false, false, false, false]);
    expect([1, 2, 3].map((n) => retryDelayMs(n, null))).toEqual([5_000, 10_000, 20_000]);
    expect(retryDelayMs(1, "120")).toBe(120_000);
    expect(retryDelayMs(1, "99999")).toBe(15 * 60_000);
  });
});

describe("deliveries", () => {
  test("every event is POSTed signed with the department's secret", async () => {
    const { t, departmentId, admin, secret } = await withWebhook();
    await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    await deliverAll(t);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call.url).toBe("http://127.0.0.1:9/hook");
    expect(call.headers["X-Maestro-Event"]).toBe("channels.created");
    const expected = `sha256=${createHmac("sha256", secret).update(call.body).digest("hex")}`;
    expect(call.headers["X-Maestro-Signature"]).toBe(expected);
    expect(JSON.parse(call.body)).toMatchObject({ type: "channels.created", departmentId, data: { name: "launch", visibility: "project" } });
    expect(await deliveries(t)).toEqual([expect.objectContaining({ status: "delivered", attempts: 1, lastStatus: 200 })]);
  });

  test("a failing receiver is retried with backoff until it answers; a 4xx ends it; the bound ends it", async () => {
    const { t, departmentId, admin } = await withWebhook();
    answers = [{ status: 503 }, new Error("connection refused"), { status: 200 }];
    await admin.mutation(api.channels.create, { departmentId, name: "one", visibility: "project" });
    await deliverAll(t);
    expect(calls).toHaveLength(3);
    expect((await deliveries(t))[0]).toMatchObject({ status: "delivered", attempts: 3 });

    answers = [{ status: 404 }];
    await admin.mutation(api.channels.create, { departmentId, name: "two", visibility: "project" });
    await deliverAll(t);
    expect((await deliveries(t))[1]).toMatchObject({ status: "failed", attempts: 1, lastStatus: 404 });

    answers = Array.from({ length: 10 }, () => ({ status: 500 }));
    await admin.mutation(api.channels.create, { departmentId, name: "three", visibility: "project" });
    await deliverAll(t);
    expect((await deliveries(t))[2]).toMatchObject({ status: "failed", attempts: WEBHOOK_MAX_ATTEMPTS, lastError: "HTTP 500" });
  });

  test("only admins set or read the webhook; a private URL is refused by default; the secret is shown once", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const member = await addToDepartment(t, departmentId, "Grace", "member");
    await expectError(member.mutation(api.webhooks.set, { departmentId, url: "https://hooks.example.com/x" }), "FORBIDDEN");
    await expectError(member.query(api.webhooks.get, { departmentId }), "FORBIDDEN");
    await expectError(admin.mutation(api.webhooks.set, { departmentId, url: "http://127.0.0.1/x" }), "INVALID_ARGUMENT", /private/);
    const { secret } = await admin.mutation(api.webhooks.set, { departmentId, url: "https://hooks.example.com/x" });
    const shown = await admin.query(api.webhooks.get, { departmentId });
    expect(shown).toMatchObject({ url: "https://hooks.example.com/x", deliveries: [] });
    expect(JSON.stringify(shown)).not.toContain(secret);
    await admin.mutation(api.webhooks.remove, { departmentId });
    expect(await admin.query(api.webhooks.get, { departmentId })).toBeNull();
  });
});
