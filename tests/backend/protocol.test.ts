import { ConvexClient, ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { ConvexError } from "convex/values";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { adminClient, signTestToken, startTestBackend, waitFor } from "./helpers";

type TestBackend = Awaited<ReturnType<typeof startTestBackend>>;
const api = anyApi;

let backend: TestBackend;
let token: string;
const clients: ConvexClient[] = [];

function client(auth?: string): ConvexClient {
  const c = new ConvexClient(backend.url, { unsavedChangesWarning: false });
  if (auth !== undefined) c.setAuth(async () => auth);
  clients.push(c);
  return c;
}

/** Subscribes and returns a live view of the latest value. */
function watch<T>(c: ConvexClient, ref: unknown, args: Record<string, unknown>) {
  const seen: T[] = [];
  c.onUpdate(ref as never, args as never, (value: T) => seen.push(value));
  return seen;
}

beforeAll(async () => {
  backend = await startTestBackend();
  token = await signTestToken(backend, { sub: "ada", name: "Ada Lovelace" });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await backend.stop();
});

describe("WebSocket sync with the real ConvexClient", () => {
  test("a mutation from one client updates another client's subscription", async () => {
    const reader = client();
    const writer = client(token);
    const seen = watch<Array<{ id?: string; body: string; author: string | null }>>(reader, api.notes.list, { channel: "general" });
    await waitFor(() => seen.length === 1, 10_000, "initial result");
    expect(seen[0]).toEqual([]);

    const id = await writer.mutation(api.notes.add, { channel: "general", body: "hello" });
    expect(typeof id).toBe("string");
    await waitFor(() => seen.at(-1)?.length === 1, 10_000, "pushed update");
    expect(seen.at(-1)).toEqual([{ id, body: "hello", author: "Ada Lovelace" }]);
  });

  test("a ConvexError's data reaches the client", async () => {
    const c = client();
    const error = await c.mutation(api.notes.fail, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConvexError);
    expect((error as ConvexError<{ code: string; message: string; extra: number[] }>).data).toEqual({ code: "NOPE", message: "Not allowed", extra: [1, 2] });
  });

  test("bigint, bytes and nested values round-trip", async () => {
    const c = client();
    const bytes = new Uint8Array([0, 1, 2, 250, 255]).buffer;
    const nested = { a: [1, "two", { three: 3n, four: null }], b: { c: true, d: -0.5 } };
    const result = await c.mutation(api.values.echo, { big: -9007199254740993n, bytes, nested });
    expect(result.big).toBe(-9007199254740993n);
    expect(new Uint8Array(result.bytes)).toEqual(new Uint8Array([0, 1, 2, 250, 255]));
    expect(result.nested).toEqual(nested);
    const all = await c.query(api.values.all, {});
    expect(all.at(-1).big).toBe(-9007199254740993n);
  });

  test("a query's rows are fresh copies with the fields in a get's order, bigint and bytes decoded (the engine's direct read)", async () => {
    const c = client();
    await c.mutation(api.values.echo, { big: 7n, bytes: new Uint8Array([9]).buffer, nested: { z: 1, a: [2n, "$x"] } });
    const result = await c.query(api.values.copies, {});
    expect(result.keys).toEqual(result.getKeys);
    expect(result.keys).toEqual([...result.keys].sort());
    expect(typeof result.bigBefore).toBe("bigint");
    expect(result.bigAfter).toBe(result.bigBefore);
    expect(result.changedAfter).toBeNull();
    expect(result.bytesIsBuffer).toBe(true);
  });

  test("an unauthenticated call to a function that needs identity fails with the function's own error", async () => {
    const error = await client().query(api.notes.whoAmI, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConvexError);
    expect((error as ConvexError<{ code: string }>).data.code).toBe("UNAUTHENTICATED");
    const me = await client(token).query(api.notes.whoAmI, {});
    expect(me).toEqual({ name: "Ada Lovelace", tokenIdentifier: `${backend.siteUrl}|ada` });
  });

  test("internal functions are refused to clients", async () => {
    const error = await client(token).mutation(api.notes.secretAdd, { channel: "x", body: "y" }).catch((e: Error) => e);
    expect((error as Error).message).toContain("Could not find public function for 'notes:secretAdd'");
  });

  test("identical subscriptions from many clients are computed once, and unchanged results are not re-sent", async () => {
    const before = backend.sync.queryRuns;
    const views = Array.from({ length: 10 }, () => watch<unknown[]>(client(), api.notes.list, { channel: "shared" }));
    await waitFor(() => views.every((v) => v.length === 1), 10_000, "ten initial results");
    expect(backend.sync.queryRuns - before).toBe(1);

    // A write to another channel re-runs nothing that reads "shared".
    const writer = client(token);
    await writer.mutation(api.notes.add, { channel: "elsewhere", body: "unrelated" });
    const runsAfterUnrelated = backend.sync.queryRuns;
    await writer.mutation(api.notes.add, { channel: "shared", body: "for all" });
    await waitFor(() => views.every((v) => v.length === 2), 10_000, "ten updates");
    expect(backend.sync.queryRuns - runsAfterUnrelated).toBe(1);
    expect(views.every((v) => v.length === 2)).toBe(true);
  });

  test("a bad or expired token gets AuthError and the client sees it signed out", async () => {
    const expired = await signTestToken(backend, { sub: "old", name: "Old Session" }, -60);
    const changes: boolean[] = [];
    const c = new ConvexClient(backend.url, { unsavedChangesWarning: false });
    clients.push(c);
    c.setAuth(async () => expired, (isAuthenticated) => changes.push(isAuthenticated));
    await waitFor(() => changes.includes(false), 10_000, "auth rejected");
    const tampered = token.slice(0, -3) + (token.endsWith("A") ? "BBB" : "AAA");
    const changes2: boolean[] = [];
    const c2 = new ConvexClient(backend.url, { unsavedChangesWarning: false });
    clients.push(c2);
    c2.setAuth(async () => tampered, (ok) => changes2.push(ok));
    await waitFor(() => changes2.includes(false), 10_000, "tampered token rejected");
    const c3 = client();
    const changes3: boolean[] = [];
    c3.setAuth(async () => token, (ok) => changes3.push(ok));
    await waitFor(() => changes3.includes(true), 10_000, "valid token accepted");
  });
});

describe("HTTP API with the real ConvexHttpClient", () => {
  test("queries, mutations, errors with status 560 and data, admin-only internal functions", async () => {
    const http = new ConvexHttpClient(backend.url);
    http.setAuth(token);
    const id = await http.mutation(api.notes.add, { channel: "http", body: "via http" });
    expect(await http.query(api.notes.list, { channel: "http" })).toEqual([{ id, body: "via http", author: "Ada Lovelace" }]);

    const failure = await http.mutation(api.notes.fail, {}).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConvexError);
    expect((failure as ConvexError<{ code: string }>).data.code).toBe("NOPE");

    const refused = await http.mutation(api.notes.secretAdd, { channel: "http", body: "no" }).catch((e: Error) => e);
    expect((refused as Error).message).toContain("Could not find public function");

    const admin = adminClient(backend.url, backend.adminKey);
    const secretId = await admin.mutation(api.notes.secretAdd, { channel: "http", body: "as admin" });
    expect(typeof secretId).toBe("string");
    expect((await http.query(api.notes.list, { channel: "http" })).length).toBe(2);
  });

  test("a query that reads the clock is refused (no Date.now() in queries)", async () => {
    const error = await new ConvexHttpClient(backend.url).query(api.notes.readsTheClock, {}).catch((e: Error) => e);
    expect((error as Error).message).toContain("Date.now() / new Date() is not allowed in queries");
    // Mutations may read the clock: notes:add's insert stamps _creationTime.
    await new ConvexHttpClient(backend.url).mutation(api.notes.add, { channel: "clock", body: "ok" });
  });

  test("environment variables reach functions through process.env", async () => {
    process.env.MAESTRO_FIXTURE_GREETING = "hello from the environment";
    expect(await new ConvexHttpClient(backend.url).query(api.notes.greeting, {})).toBe("hello from the environment");
  });

  test("clear errors for unknown functions and bad arguments", async () => {
    const http = new ConvexHttpClient(backend.url);
    const unknown = await http.query(anyApi.nope.missing, {}).catch((e: Error) => e);
    expect((unknown as Error).message).toContain("Could not find public function for 'nope:missing'");
    const badArgs = await http.query(api.notes.list, { channel: 42 } as never).catch((e: Error) => e);
    expect((badArgs as Error).message).toMatch(/Validator error: Expected `string`, got `42`/);
  });

  test("a mutation whose return value its validator refuses commits none of its writes, called directly or from another mutation", async () => {
    const http = new ConvexHttpClient(backend.url);
    const refused = await http.mutation(api.notes.addWithBadReturn, { channel: "bad-return", body: "direct" }).catch((e: Error) => e);
    expect((refused as Error).message).toContain('Return value validation failed for mutation "notes:addWithBadReturn"');
    expect(await http.query(api.notes.list, { channel: "bad-return" })).toEqual([]);
    // Called from a mutation that catches the failure: the call's insert is rolled back, the caller's own stays.
    const caught = (await http.mutation(api.notes.callBadReturn, { channel: "bad-return", how: "nested" })) as string;
    expect(caught).toContain('Return value validation failed for mutation "notes:addWithBadReturn"');
    expect((await http.query(api.notes.list, { channel: "bad-return" })).map((n: { body: string }) => n.body)).toEqual(["outer"]);
  });

  test("raw bodies: status 560 with errorMessage/errorData, 401 for a bad admin key, CORS preflight", async () => {
    const response = await fetch(`${backend.url}/api/mutation`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ path: "notes:fail", format: "convex_encoded_json", args: [{}] }),
    });
    expect(response.status).toBe(560);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.status).toBe("error");
    expect(body.errorData).toEqual({ code: "NOPE", message: "Not allowed", extra: [1, 2] });
    expect(String(body.errorMessage)).toContain("ConvexError");

    const badAdmin = await fetch(`${backend.url}/api/query`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Convex wrong" },
      body: JSON.stringify({ path: "notes:countAll", args: [{}] }),
    });
    expect(badAdmin.status).toBe(401);

    const preflight = await fetch(`${backend.url}/api/query`, {
      method: "OPTIONS",
      headers: { Origin: "http://127.0.0.1:8080", "Access-Control-Request-Method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:8080");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization");

    const ts = (await (await fetch(`${backend.url}/api/query_ts`, { method: "POST" })).json()) as { ts: number };
    expect(ts.ts).toBeGreaterThan(0);
  });

  test("HTTP actions on the site address see the caller's identity", async () => {
    const anonymous = await fetch(`${backend.siteUrl}/whoami`);
    expect(await anonymous.json()).toEqual({ name: null });
    const signedIn = await fetch(`${backend.siteUrl}/whoami`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await signedIn.json()).toEqual({ name: "Ada Lovelace" });
    const echo = await fetch(`${backend.siteUrl}/echo`, { method: "POST", body: "ping" });
    expect(echo.status).toBe(201);
    expect(await echo.text()).toBe("echo: ping");
    expect((await fetch(`${backend.siteUrl}/missing`)).status).toBe(404);
  });
});

describe("raw protocol", () => {
  function socket(): Promise<{ ws: WebSocket; messages: Array<Record<string, unknown>>; closed: Promise<{ code: number; reason: string }> }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${backend.url.replace("http", "ws")}/api/1.48.0/sync`);
      const messages: Array<Record<string, unknown>> = [];
      const closed = new Promise<{ code: number; reason: string }>((r) =>
        ws.on("close", (code, reason) => r({ code, reason: reason.toString() })),
      );
      ws.on("message", (data) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
      ws.on("open", () => resolve({ ws, messages, closed }));
      ws.on("error", reject);
    });
  }
  const connect = (sessionId: string) =>
    JSON.stringify({ type: "Connect", sessionId, connectionCount: 0, lastCloseReason: null, clientTs: Date.now() });

  test("a malformed message closes only that connection, with a reason", async () => {
    const healthy = client();
    const seen = watch<unknown[]>(healthy, api.notes.list, { channel: "survivor" });
    await waitFor(() => seen.length === 1);
    const bad = await socket();
    bad.ws.send("{not json");
    const { code, reason } = await bad.closed;
    expect(code).toBe(1002);
    expect(reason).toContain("Malformed message");
    const other = await socket();
    other.ws.send(connect("s-other"));
    other.ws.send(JSON.stringify({ type: "Bogus" }));
    expect((await other.closed).reason).toContain('unknown type "Bogus"');

    await client(token).mutation(api.notes.add, { channel: "survivor", body: "still here" });
    await waitFor(() => seen.length === 2, 10_000, "healthy client still updated");
  });

  test("a re-sent mutation (same session and request id) is answered from its recorded result", async () => {
    const sessionId = `dedupe-${Date.now()}`;
    const mutation = JSON.stringify({
      type: "Mutation",
      requestId: 7,
      udfPath: "notes:add",
      args: [{ channel: "dedupe", body: "once" }],
    });
    const first = await socket();
    first.ws.send(connect(sessionId));
    first.ws.send(mutation);
    await waitFor(() => first.messages.some((m) => m.type === "MutationResponse"));
    first.ws.close();
    const second = await socket();
    second.ws.send(connect(sessionId));
    second.ws.send(mutation);
    await waitFor(() => second.messages.some((m) => m.type === "MutationResponse"));
    const a = first.messages.find((m) => m.type === "MutationResponse")!;
    const b = second.messages.find((m) => m.type === "MutationResponse")!;
    expect(b.result).toEqual(a.result);
    expect(b.ts).toEqual(a.ts);
    const http = new ConvexHttpClient(backend.url);
    expect(await http.query(api.notes.list, { channel: "dedupe" })).toHaveLength(1);
    second.ws.close();
  });

  test("each Transition starts at the previous endVersion and a mutation's ts is reached", async () => {
    const s = await socket();
    s.ws.send(connect(`versions-${Date.now()}`));
    s.ws.send(
      JSON.stringify({
        type: "ModifyQuerySet",
        baseVersion: 0,
        newVersion: 1,
        modifications: [{ type: "Add", queryId: 0, udfPath: "notes:list", args: [{ channel: "versions" }] }],
      }),
    );
    s.ws.send(JSON.stringify({ type: "Mutation", requestId: 0, udfPath: "notes:add", args: [{ channel: "versions", body: "v" }] }));
    await waitFor(() => s.messages.filter((m) => m.type === "Transition").length >= 2);
    const response = s.messages.find((m) => m.type === "MutationResponse")!;
    const transitions = s.messages.filter((m) => m.type === "Transition") as Array<{
      startVersion: { ts: string; querySet: number; identity: number };
      endVersion: { ts: string; querySet: number; identity: number };
    }>;
    for (let i = 1; i < transitions.length; i++) expect(transitions[i].startVersion).toEqual(transitions[i - 1].endVersion);
    const decode = (ts: string) => Buffer.from(ts, "base64").readBigUInt64LE();
    expect(decode(transitions.at(-1)!.endVersion.ts) >= decode(response.ts as string)).toBe(true);
    expect(s.messages.indexOf(response)).toBeLessThan(s.messages.indexOf(transitions.at(-1)!));
    s.ws.close();
  });

  test("Transitions carry the client's clock skew from its Connect (the client times token refreshes by it)", async () => {
    const s = await socket();
    const ahead = 60_000;
    s.ws.send(JSON.stringify({ type: "Connect", sessionId: `skew-${Date.now()}`, connectionCount: 0, lastCloseReason: null, clientTs: Date.now() + ahead }));
    s.ws.send(JSON.stringify({ type: "ModifyQuerySet", baseVersion: 0, newVersion: 1, modifications: [] }));
    await waitFor(() => s.messages.some((m) => m.type === "Transition"));
    const skew = s.messages.find((m) => m.type === "Transition")!.clientClockSkew as number;
    // Our clock moved on between the send and the arrival, so a little less than `ahead`.
    expect(skew).toBeLessThanOrEqual(ahead);
    expect(skew).toBeGreaterThan(ahead / 2);
    s.ws.close();
  });

  test("a client that keeps its cached token authenticates once (no second Authenticate re-running every query)", async () => {
    const calls: boolean[] = [];
    const c = new ConvexClient(backend.url, { unsavedChangesWarning: false, initialAuthTokenReuse: true });
    clients.push(c);
    c.setAuth(async ({ forceRefreshToken }) => {
      calls.push(forceRefreshToken);
      return token;
    });
    const seen = watch<unknown>(c, api.notes.whoAmI, {});
    await waitFor(() => seen.length === 1, 10_000, "authenticated result");
    await c.mutation(api.notes.add, { channel: "reuse", body: "after auth" });
    expect(calls).toEqual([false]);
  });

  test("an Authenticate with a bad token gets AuthError", async () => {
    const s = await socket();
    s.ws.send(connect(`auth-${Date.now()}`));
    s.ws.send(JSON.stringify({ type: "Authenticate", tokenType: "User", value: "not.a.jwt", baseVersion: 0 }));
    await waitFor(() => s.messages.some((m) => m.type === "AuthError"));
    expect(s.messages.find((m) => m.type === "AuthError")).toMatchObject({ authUpdateAttempted: true, baseVersion: 0 });
    s.ws.close();
  });
});
