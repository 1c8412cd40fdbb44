import { createHmac } from "node:crypto";
import type * as Dns from "node:dns";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { api } from "../../convex/_generated/api";
import { checkWebhookUrl, DELIVERY_FAILED, isPublicAddress, retryDelayMs, shouldRetry, WEBHOOK_MAX_ATTEMPTS } from "../../convex/lib/webhooks";
import { addToDepartment, demoSquad, expectError, type TestConvex } from "./setup";

// DNS as an attacker's domain answers it: `loopback.attacker.test` resolves to this machine.
vi.mock("node:dns", async (importOriginal) => {
  const real = await importOriginal<typeof Dns>();
  const lookup = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    if (hostname === "loopback.attacker.test") return callback(null, [{ address: "127.0.0.1", family: 4 }]);
    if (hostname === "mixed.attacker.test") return callback(null, [{ address: "93.184.215.14", family: 4 }, { address: "::ffff:127.0.0.1", family: 6 }]);
    return (real.lookup as (...args: unknown[]) => void)(hostname, options, callback);
  }) as typeof real.lookup;
  return { ...real, default: { ...real, lookup }, lookup };
});

type Call = { url: string; headers: Record<string, string | string[] | undefined>; body: string };

/** A real receiver on 127.0.0.1: records each call and answers the next scripted status (200 when none is left). */
let server: Server;
let port: number;
let calls: Call[] = [];
let answers: Array<{ status: number; retryAfter?: string } | "hang-up"> = [];

beforeEach(async () => {
  calls = [];
  answers = [];
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      calls.push({ url: request.url ?? "", headers: request.headers, body });
      const answer = answers.shift() ?? { status: 200 };
      if (answer === "hang-up") return request.socket.destroy();
      response.writeHead(answer.status, answer.retryAfter ? { "Retry-After": answer.retryAfter } : {});
      response.end("remote detail: internal service v1.2 says no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
  await new Promise((resolve) => server.close(resolve));
});

async function deliverAll(t: TestConvex) {
  await t.finishAllScheduledFunctions(vi.runAllTimers);
}

/** A webhook on the local receiver, as a self-hoster who opted in to private addresses sets it. */
async function withWebhook() {
  const { t, departmentId, admin } = await demoSquad();
  vi.stubEnv("MAESTRO_WEBHOOK_ALLOW_PRIVATE", "1");
  const { secret } = await admin.mutation(api.webhooks.set, { departmentId, url: `http://127.0.0.1:${port}/hook` });
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

  test("every spelling of a loopback, private, link-local, unique-local, mapped, compatible or unspecified address is refused", () => {
    const refused = [
      "http://[::ffff:127.0.0.1]:7390/x",
      "http://[0:0:0:0:0:ffff:7f00:1]:7390/x",
      "http://[::ffff:169.254.169.254]/latest",
      "http://[::127.0.0.1]/",
      "http://[::]/",
      "http://0.0.0.0/",
      "http://2130706433/",
      "http://0x7f.1/",
      "http://[fe80::1]/",
      "http://[fd12:3456::1]/",
      "http://[64:ff9b::7f00:1]/",
      "http://[2002:a9fe:a9fe::]/",
      "http://100.64.0.1/",
      "http://api.localhost/",
    ];
    for (const url of refused) expect(() => checkWebhookUrl(url, false), url).toThrow(/MAESTRO_WEBHOOK_ALLOW_PRIVATE/);
    for (const address of ["93.184.215.14", "2606:4700::1111"]) expect(isPublicAddress(address), address).toBe(true);
    for (const address of ["::ffff:93.184.215.14", "::1", "fc00::1", "127.1.2.3", "not an address"]) expect(isPublicAddress(address), address).toBe(false);
  });

  test("retries: 5xx, 408, 429 and network errors; backoff doubles, Retry-After can lengthen it, capped", () => {
    expect([500, 503, 408, 429, null].map(shouldRetry)).toEqual([true, true, true, true, true]);
    expect([400, 401, 404, 410].map(shouldRetry)).toEqual([false, false, false, false]);
    expect([1, 2, 3].map((n) => retryDelayMs(n, null))).toEqual([5_000, 10_000, 20_000]);
    expect(retryDelayMs(1, "120")).toBe(120_000);
    expect(retryDelayMs(1, "99999")).toBe(15 * 60_000);
  });
});

describe("the receiver on this machine, without the opt-in", () => {
  test("is never called: loopback spellings are refused when saved, and a name resolving to loopback at delivery", async () => {
    const { t, departmentId, admin } = await demoSquad();
    for (const host of ["[::ffff:127.0.0.1]", "[0:0:0:0:0:ffff:7f00:1]", "127.0.0.1", "localhost"]) {
      await expectError(admin.mutation(api.webhooks.set, { departmentId, url: `http://${host}:${port}/x` }), "INVALID_ARGUMENT", /private/);
    }
    // A public-looking name whose DNS answer is this machine (or, among others, an address of it) passes the save and is refused at delivery.
    for (const host of ["loopback.attacker.test", "mixed.attacker.test"]) {
      await admin.mutation(api.webhooks.set, { departmentId, url: `http://${host}:${port}/x` });
      await admin.mutation(api.channels.create, { departmentId, name: host.split(".")[0], visibility: "project" });
      await deliverAll(t);
    }
    // A webhook stored before these rules, on the loopback literal, is refused at delivery too.
    await t.run(async (ctx) => {
      const hook = (await ctx.db.query("webhooks").first())!;
      await ctx.db.patch("webhooks", hook._id, { url: `http://127.0.0.1:${port}/x` });
    });
    await admin.mutation(api.channels.create, { departmentId, name: "literal", visibility: "project" });
    await deliverAll(t);

    expect(calls).toEqual([]);
    const shown = (await admin.query(api.webhooks.get, { departmentId }))!.deliveries;
    expect(shown).toHaveLength(3);
    // Refused once, not retried; the admin reads one generic reason, whatever happened.
    for (const delivery of shown) expect(delivery).toMatchObject({ status: "failed", attempts: 1, lastError: DELIVERY_FAILED });
  });
});

describe("deliveries", () => {
  test("every event is POSTed signed with the department's secret", async () => {
    const { t, departmentId, admin, secret } = await withWebhook();
    await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    await deliverAll(t);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call.url).toBe("/hook");
    expect(call.headers["x-maestro-event"]).toBe("channels.created");
    const expected = `sha256=${createHmac("sha256", secret).update(call.body).digest("hex")}`;
    expect(call.headers["x-maestro-signature"]).toBe(expected);
    expect(JSON.parse(call.body)).toMatchObject({ type: "channels.created", departmentId, data: { name: "launch", visibility: "project" } });
    expect(await deliveries(t)).toEqual([expect.objectContaining({ status: "delivered", attempts: 1, lastStatus: 200 })]);
  });

  test("a failing receiver is retried with backoff until it answers; a 4xx ends it; the bound ends it; a redirect is not followed", async () => {
    const { t, departmentId, admin } = await withWebhook();
    answers = [{ status: 503 }, "hang-up", { status: 200 }];
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
    expect((await deliveries(t))[2]).toMatchObject({ status: "failed", attempts: WEBHOOK_MAX_ATTEMPTS, lastError: DELIVERY_FAILED });

    answers = [{ status: 302 }];
    calls = [];
    await admin.mutation(api.channels.create, { departmentId, name: "four", visibility: "project" });
    await deliverAll(t);
    expect(calls).toHaveLength(1);
    expect((await deliveries(t))[3]).toMatchObject({ status: "failed", attempts: 1 });

    // What the admin reads: the outcome and a generic reason, never the receiver's status or answer.
    // Ids, times, the port and the secret's hint are left out: their digits may spell 404 by chance.
    const incidental = new Set(["_id", "_creationTime", "url", "secretHint"]);
    const shown = JSON.stringify(await admin.query(api.webhooks.get, { departmentId }), (key, value: unknown) => (incidental.has(key) ? undefined : value));
    expect(shown).not.toMatch(/404|500|503|302|remote detail|lastStatus/);
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

describe("a test delivery", () => {
  test("is a signed webhooks.test event delivered like any other; the recent deliveries show its status, time and type", async () => {
    const { t, departmentId, admin, secret } = await withWebhook();
    await admin.mutation(api.webhooks.sendTest, { departmentId });
    await deliverAll(t);
    expect(calls).toHaveLength(1);
    expect(calls[0].headers["x-maestro-event"]).toBe("webhooks.test");
    expect(calls[0].headers["x-maestro-signature"]).toBe(`sha256=${createHmac("sha256", secret).update(calls[0].body).digest("hex")}`);
    expect(JSON.parse(calls[0].body)).toMatchObject({ type: "webhooks.test", actor: { kind: "member", name: "Ada" }, data: { test: true } });
    answers = [{ status: 404 }];
    await admin.mutation(api.channels.create, { departmentId, name: "launch", visibility: "project" });
    await deliverAll(t);
    const { deliveries: shown } = (await admin.query(api.webhooks.get, { departmentId }))!;
    expect(shown).toEqual([
      expect.objectContaining({ status: "failed", eventType: "channels.created", attempts: 1, _creationTime: expect.any(Number) }),
      expect.objectContaining({ status: "delivered", eventType: "webhooks.test", attempts: 1 }),
    ]);
    // The event log records who tested it.
    const logged = (await admin.query(api.events.list, { departmentId, type: "webhooks.test", paginationOpts: { numItems: 5, cursor: null } })).page;
    expect(logged).toEqual([expect.objectContaining({ actor: expect.objectContaining({ name: "Ada" }) })]);
  });

  test("keeps the address rules: a name resolving to this machine is never called", async () => {
    const { t, departmentId, admin } = await demoSquad();
    await admin.mutation(api.webhooks.set, { departmentId, url: `http://loopback.attacker.test:${port}/x` });
    await admin.mutation(api.webhooks.sendTest, { departmentId });
    await deliverAll(t);
    expect(calls).toEqual([]);
    expect((await admin.query(api.webhooks.get, { departmentId }))!.deliveries).toEqual([
      expect.objectContaining({ status: "failed", eventType: "webhooks.test", attempts: 1, lastError: DELIVERY_FAILED }),
    ]);
  });

  test("admins only, with a webhook set, a few a minute; members, viewers and other departments are refused and nothing is sent", async () => {
    const { t, departmentId, admin, grace, vera, other } = await demoSquad({ grace: true, vera: true, other: true });
    await expectError(admin.mutation(api.webhooks.sendTest, { departmentId }), "NOT_FOUND", /Set a webhook URL first/);
    vi.stubEnv("MAESTRO_WEBHOOK_ALLOW_PRIVATE", "1");
    await admin.mutation(api.webhooks.set, { departmentId, url: `http://127.0.0.1:${port}/hook` });
    for (const caller of [grace, vera, other.member]) await expectError(caller.mutation(api.webhooks.sendTest, { departmentId }), "FORBIDDEN");
    await expectError(other.member.mutation(api.webhooks.sendTest, { departmentId: other.departmentId }), "NOT_FOUND");
    for (let i = 0; i < 3; i++) await admin.mutation(api.webhooks.sendTest, { departmentId });
    await expectError(admin.mutation(api.webhooks.sendTest, { departmentId }), "RATE_LIMITED", /Too many test deliveries/);
    await deliverAll(t);
    expect(calls).toHaveLength(3);
    expect(await deliveries(t)).toHaveLength(3);
  });
});

