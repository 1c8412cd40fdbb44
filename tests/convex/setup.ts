/// <reference types="vite/client" />
import { generateKeyPairSync } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { convexTest as publishedConvexTest } from "convex-test";
import type { FunctionArgs, WithoutSystemFields } from "convex/server";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import type { ErrorCode } from "../../convex/lib/errors";
import { addMember } from "../../convex/records/members";
import { insertRun as insertRunRecord } from "../../convex/records/runs";
import { createRuleScanner, ruleScanner, SECRET_RULES, withNormalization, type SecretFinding, type SecretScanner } from "../../convex/lib/secrets/index";
import { parseNegatives, parsePositives, type NegativeCase, type PositiveCase } from "../fixtures/secrets/corpus";
import negativesRaw from "../fixtures/secrets/negatives.jsonl?raw";
import positivesRaw from "../fixtures/secrets/positives.jsonl?raw";
import { registerComponents } from "./components";
import { importConvexTest } from "../../tools/local-backend/convexTestInternals";
import schema from "../../convex/schema";
import { plainChannelMessage } from "../fixtures/channelMessages";
import type { ApiBody } from "../fixtures/messagingApi";
import type { MemberRole, TaskStatus } from "../../convex/validators";

export const modules = import.meta.glob("../../convex/**/*.*s");

/** The issuer a Convex Auth token carries in tests (the deployment's site URL). */
export const TEST_ISSUER = "https://maestro.test";

// Convex Auth signs its tokens with these, as a deployment's environment holds them.
if (process.env.JWT_PRIVATE_KEY === undefined) {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  process.env.JWT_PRIVATE_KEY = privateKey.export({ type: "pkcs8", format: "pem" }).toString().trimEnd().replace(/\n/g, " ");
  process.env.JWKS = JSON.stringify({ keys: [{ use: "sig", ...publicKey.export({ format: "jwk" }) }] });
  process.env.CONVEX_SITE_URL = TEST_ISSUER;
  process.env.SITE_URL = "http://127.0.0.1:5173";
}

/**
 * convex-test with Convex's own checks on values and on a mutation's return
 * value (tools/local-backend/valueLimits.ts), as the offline backend and a
 * deployment make them: a function that writes or returns more than Convex
 * takes fails here too.
 */
const { convexTest } = (await importConvexTest(fileURLToPath(new URL("../..", import.meta.url)), [], "convex checks")) as { convexTest: typeof publishedConvexTest };

/** A fresh in-memory deployment, with the components convex.config.ts installs. */
export function setupTest() {
  // Convex's transaction limits on, as a deployment enforces them (reads, writes, index ranges, scheduled functions).
  return registerComponents(convexTest({ schema, modules, transactionLimits: true }));
}

export type TestConvex = ReturnType<typeof setupTest>;

// People created per test deployment, by name, so keys can be named synchronously.
const people = new WeakMap<TestConvex, Map<string, { userId: Id<"users">; sessionId: Id<"authSessions"> }>>();

function peopleOf(t: TestConvex) {
  let map = people.get(t);
  if (map === undefined) people.set(t, (map = new Map()));
  return map;
}

function actorFor(t: TestConvex, name: string, userId: Id<"users">, sessionId: Id<"authSessions">) {
  // As Convex Auth signs it: subject `<userId>|<sessionId>`.
  return t.withIdentity({ name, subject: `${userId}|${sessionId}`, issuer: TEST_ISSUER });
}

/**
 * `name` signed in with a Convex Auth session (an account `<name>@example.com`
 * is created on first use; it belongs to no department until added).
 */
export async function asUser(t: TestConvex, name: string) {
  const known = peopleOf(t).get(name);
  if (known !== undefined) return actorFor(t, name, known.userId, known.sessionId);
  const ids = await t.run(async (ctx) => {
    const userId = await ctx.db.insert("users", { name, email: `${name.toLowerCase().replace(/\s+/g, ".")}@example.com` });
    const sessionId = await ctx.db.insert("authSessions", { userId, expirationTime: Date.now() + 3_600_000 });
    return { userId, sessionId };
  });
  peopleOf(t).set(name, ids);
  return actorFor(t, name, ids.userId, ids.sessionId);
}

/** The user id of someone created with `asUser`. */
export function userIdOf(t: TestConvex, name: string): Id<"users"> {
  const known = peopleOf(t).get(name);
  if (known === undefined) throw new Error(`${name} has not signed in in this test`);
  return known.userId;
}

/** Adds `name` (signing them in first) to a department with `role`. */
export async function addToDepartment(t: TestConvex, departmentId: Id<"departments">, name: string, role: MemberRole) {
  const actor = await asUser(t, name);
  const userId = userIdOf(t, name);
  await t.run(async (ctx) => {
    const existing = await ctx.db
      .query("members")
      .withIndex("by_department_and_user", (q) => q.eq("departmentId", departmentId).eq("userId", userId))
      .unique();
    if (existing === null) await addMember(ctx, departmentId, userId, name, role);
  });
  return actor;
}

/** Seeds the demo department and signs `name` in as its admin. */
export async function seedDemoWithAdmin(t: TestConvex, name = "Ada") {
  const departmentId = await t.mutation(internal.seed.demo, {});
  const admin = await addToDepartment(t, departmentId, name, "admin");
  return { departmentId, admin };
}

/** A second department with one admin of its own, to test that ids of other departments are refused. */
export async function createOtherDepartment(t: TestConvex, memberName = "Mallory") {
  const departmentId = await t.run(
    async (ctx) => await ctx.db.insert("departments", { name: "Other", slug: "other", chatSessionId: "other-session" }),
  );
  const member = await addToDepartment(t, departmentId, memberName, "admin");
  return { departmentId, member };
}

/** What `asUser` returns: one signed-in actor. */
export type Actor = Awaited<ReturnType<typeof asUser>>;

/** What `createOtherDepartment` returns: its department and its admin. */
export type OtherDepartment = Awaited<ReturnType<typeof createOtherDepartment>>;

/** Who `demoSquad` adds besides Ada: Grace (a member), Vera (a viewer), `createOtherDepartment`'s department. */
export interface DemoSquadOptions {
  grace?: boolean;
  vera?: boolean;
  other?: boolean;
}

/** What `demoSquad(options)` returns: the deployment, the demo department, Ada, and whoever `options` asked for. */
export type DemoSquad<O extends DemoSquadOptions> = { t: TestConvex; departmentId: Id<"departments">; admin: Actor } &
  (O["grace"] extends true ? { grace: Actor } : unknown) &
  (O["vera"] extends true ? { vera: Actor } : unknown) &
  (O["other"] extends true ? { other: OtherDepartment } : unknown);

/** A fresh deployment with the demo department seeded, Ada its admin, and the people `options` ask for. */
export async function demoSquad<const O extends DemoSquadOptions = DemoSquadOptions>(options: O = {} as O): Promise<DemoSquad<O>> {
  const t = setupTest();
  const { departmentId, admin } = await seedDemoWithAdmin(t);
  // In this order: signIn joins every department there is, so Grace is not in the other one.
  const grace = options.grace === true ? { grace: await signIn(t, "Grace") } : {};
  const vera = options.vera === true ? { vera: await addToDepartment(t, departmentId, "Vera", "viewer") } : {};
  const other = options.other === true ? { other: await createOtherDepartment(t) } : {};
  return { t, departmentId, admin, ...grace, ...vera, ...other } as DemoSquad<O>;
}

/** Session keys of the seeded "product" squad. */
export const AGENTS = {
  jarvis: "agent:jarvis:product",
  devBot: "agent:dev-bot:product",
  writer: "agent:writer:product",
  archie: "agent:archie:product",
} as const;

/** The key notifications and mentions use for a person created with `asUser`. */
export function memberKeyOf(t: TestConvex, name: string): string {
  return `member:${userIdOf(t, name)}`;
}

/** Signs `name` in and adds them to every existing department with `role` (a member by default). */
export async function signIn(t: TestConvex, name: string, role: MemberRole = "member"): Promise<Actor> {
  const actor = await asUser(t, name);
  const departments = await t.run(async (ctx) => await ctx.db.query("departments").collect());
  for (const department of departments) await addToDepartment(t, department._id, name, role);
  return actor;
}

/** Creates a task as `actor`; fields not given get harmless defaults. */
export async function createTask(
  actor: Actor,
  departmentId: Id<"departments">,
  fields: Partial<Omit<FunctionArgs<typeof api.tasks.create>, "departmentId">> = {},
): Promise<Id<"tasks">> {
  return await actor.mutation(api.tasks.create, { departmentId, title: "A task", ...fields });
}

/** Titles of one column's cards, in board order. */
export async function columnTitles(actor: Actor, departmentId: Id<"departments">, status: TaskStatus): Promise<string[]> {
  const columns = await actor.query(api.tasks.list, { departmentId });
  return columns.find((c) => c.status === status)!.tasks.map((task) => task.title);
}

/** A task row to insert directly (no activity, no triggers): an inbox card with harmless defaults, `fields` over them. */
export function taskRow(departmentId: Id<"departments">, fields: Partial<WithoutSystemFields<Doc<"tasks">>> & { title: string }): WithoutSystemFields<Doc<"tasks">> {
  return {
    departmentId,
    description: "",
    status: "inbox",
    priority: "low",
    tags: [],
    assigneeSessionKeys: [],
    createdBy: "system",
    order: 0,
    updatedAt: 0,
    ...fields,
  };
}

/** A channel message row to insert directly (no scan, no notifications): a plain system message with no replies, `fields` over it. */
export function channelMessageRow(
  departmentId: Id<"departments">,
  channelId: Id<"channels">,
  fields: Partial<WithoutSystemFields<Doc<"channelMessages">>> & { body: string },
): WithoutSystemFields<Doc<"channelMessages">> {
  return { departmentId, channelId, from: { kind: "system" }, ...plainChannelMessage(), ...fields };
}

/** The id of a task that existed once and no longer does. */
export async function deletedTaskId(t: TestConvex, departmentId: Id<"departments">): Promise<Id<"tasks">> {
  return await t.run(async (ctx) => {
    const id = await ctx.db.insert("tasks", taskRow(departmentId, { title: "Gone" }));
    await ctx.db.delete("tasks", id);
    return id;
  });
}

/** A task of `createOtherDepartment`'s department, to show ids of other departments are refused. */
export async function createOtherTask(t: TestConvex, departmentId: Id<"departments">): Promise<Id<"tasks">> {
  return await t.run(async (ctx) => await ctx.db.insert("tasks", taskRow(departmentId, { title: "Their task", order: 1024 })));
}

/** An agent of `createOtherDepartment`'s department; returns its session key, to show other departments' agents are refused. */
export async function createOtherAgent(t: TestConvex, departmentId: Id<"departments">): Promise<string> {
  const sessionKey = "agent:spy:other";
  await t.run(async (ctx) => {
    await ctx.db.insert("agents", {
      departmentId,
      name: "Spy",
      nameKey: "spy",
      role: "Spy",
      kind: "specialist",
      sessionKey,
      status: "idle",
      isSquadLead: false,
      allowedTools: [],
      systemPrompt: "",
    });
  });
  return sessionKey;
}

/**
 * Asserts the refusals every task-scoped function shares, calling `call`
 * with each caller and task: an anonymous caller (UNAUTHENTICATED), a member
 * of the other department (FORBIDDEN), the admin on the other department's
 * task (FORBIDDEN) and on a deleted task (NOT_FOUND, with `notFound` when
 * given). Returns those two tasks' ids.
 */
export async function expectTaskRefusals(
  squad: { t: TestConvex; departmentId: Id<"departments">; admin: Actor; other: OtherDepartment },
  taskId: Id<"tasks">,
  call: (caller: Actor, taskId: Id<"tasks">) => Promise<unknown>,
  notFound?: string | RegExp,
): Promise<{ theirs: Id<"tasks">; gone: Id<"tasks"> }> {
  const { t, departmentId, admin, other } = squad;
  await expectError(call(t, taskId), "UNAUTHENTICATED");
  await expectError(call(other.member, taskId), "FORBIDDEN");
  const theirs = await createOtherTask(t, other.departmentId);
  await expectError(call(admin, theirs), "FORBIDDEN");
  const gone = await deletedTaskId(t, departmentId);
  await expectError(call(admin, gone), "NOT_FOUND", notFound);
  return { theirs, gone };
}

/** Runs everything the scheduler holds (call `vi.useFakeTimers()` first). */
export async function runScheduled(t: TestConvex): Promise<void> {
  await t.finishAllScheduledFunctions(vi.runAllTimers);
}

/** Raw notification rows for one recipient, oldest first. */
export async function notificationsFor(t: TestConvex, recipientKey: string): Promise<Array<Doc<"notifications">>> {
  return await t.run(async (ctx) =>
    await ctx.db
      .query("notifications")
      .withIndex("by_recipient_and_readAt", (q) => q.eq("recipientKey", recipientKey))
      .collect(),
  );
}

/** Every agentTriggers row, oldest first. */
export async function allTriggers(t: TestConvex): Promise<Array<Doc<"agentTriggers">>> {
  return await t.run(async (ctx) => await ctx.db.query("agentTriggers").collect());
}

/** Asserts `promise` fails with a `ConvexError` of `code` whose message matches `message` when given. */
export async function expectError(promise: Promise<unknown>, code: ErrorCode, message?: string | RegExp): Promise<void> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `expected a ${code} error`).toBeInstanceOf(ConvexError);
  const data = (error as ConvexError<{ code: ErrorCode; message: string }>).data;
  expect(data.code).toBe(code);
  if (message !== undefined) expect(data.message).toMatch(message);
}

/** The agent with this session key. */
export async function agent(t: TestConvex, sessionKey: string): Promise<Doc<"agents">> {
  return await t.run(async (ctx) => (await ctx.db.query("agents").withIndex("by_sessionKey", (q) => q.eq("sessionKey", sessionKey)).unique())!);
}

/** A run inserted by hand (records/runs insertRun), as if `brain/run:execute` had started it when `status` is running. */
export async function insertRun(t: TestConvex, sessionKey: string, taskId: Id<"tasks">, status: Doc<"runs">["status"] = "running"): Promise<Id<"runs">> {
  const a = await agent(t, sessionKey);
  return await t.run(async (ctx) => {
    const runId = await insertRunRecord(ctx, a, taskId, { kind: "assigned" });
    // An attempt-less run counts as its first attempt (records/runEvents liveRun).
    await ctx.db.patch("runs", runId, { status, attempt: undefined, lastActiveAt: undefined, startedAt: status === "running" ? Date.now() : undefined });
    return runId;
  });
}

/**
 * Holds scheduled functions (the board's trigger functions, the brain's runs)
 * on fake timers for every test of the calling file, until a test runs them
 * with `runScheduled`.
 */
export function holdScheduledFunctions(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

/**
 * For every test of the calling file: scheduled functions held as
 * `holdScheduledFunctions` holds them, and a model "configured" on a port
 * nothing listens on (so runs are created and `brain/run:execute` is
 * scheduled, never called), with `extraEnv` set too (undefined unsets a
 * name). The environment is put back after each test.
 */
export function withClosedModel(extraEnv: Record<string, string | undefined> = {}): void {
  holdScheduledFunctions();
  const env = { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "x", ...extraEnv };
  let saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    setEnv(env);
  });
  afterEach(() => {
    setEnv(saved);
  });
}

/** What a run's next model call reads (brain/context roundInputs): its assembled context, inbox, #maestro and context pack. */
export async function roundInputs(t: TestConvex, runId: Id<"runs">) {
  return await t.query(internal.brain.context.roundInputs, { runId });
}

/** The run action's first write (brain/writes start): the run is running as its next attempt; returns that attempt. */
export async function startRun(t: TestConvex, runId: Id<"runs">): Promise<number> {
  const started = await t.mutation(internal.brain.writes.start, { runId });
  expect(started, "the run was not queued").not.toBeNull();
  return started!.attempt;
}

/**
 * The end of a model reply as the run action writes it (brain/writes
 * endReply): what the model was shown counts as read (`seen`), and the
 * #maestro cursor moves (`chat`).
 */
export async function endReply(t: TestConvex, runId: Id<"runs">, after: Pick<FunctionArgs<typeof internal.brain.writes.endReply>, "seen" | "chat">) {
  const attempt = await t.run(async (ctx) => (await ctx.db.get("runs", runId))!.attempt ?? 1);
  return await t.mutation(internal.brain.writes.endReply, { runId, attempt, model: "test model", promptTokens: 0, completionTokens: 0, ...after });
}

let fixtures: { positives: PositiveCase[]; negatives: NegativeCase[] } | undefined;

/** The secret scanner's labelled corpus (tests/fixtures/secrets), parsed on first use. */
export function secretFixtures(): { positives: PositiveCase[]; negatives: NegativeCase[] } {
  fixtures ??= { positives: parsePositives(positivesRaw), negatives: parseNegatives(negativesRaw) };
  return fixtures;
}

let reference: SecretScanner | undefined;

/**
 * Every secret rule's pattern over the whole text and over its whole
 * normalized view, with no keywords and no anchoring: the plain definition
 * the shipped scanner's shortcuts must agree with (built on first use).
 */
export function referenceScanner(): SecretScanner {
  reference ??= withNormalization(createRuleScanner(SECRET_RULES.map((rule) => ({ ...rule, keywords: [], startsAt: undefined }))));
  return reference;
}

/** Findings as sorted, distinct `start-end:rule` strings, to compare two scanners' results. */
export function findingSpans(findings: readonly SecretFinding[]): string[] {
  return [...new Set(findings.map((finding) => `${finding.start}-${finding.end}:${finding.rule}`))].sort();
}

/** Asserts the shipped scanner finds in each text exactly what `referenceScanner` finds. */
export function expectSameAsReference(texts: readonly string[]): void {
  for (const text of texts) {
    expect(findingSpans(ruleScanner.scan(text)), JSON.stringify(text.slice(0, 160))).toEqual(findingSpans(referenceScanner().scan(text)));
  }
}

/** The demo squad (Grace included) with an API key for Writer: the messaging HTTP API's caller. */
export async function squadWithWriterKey() {
  const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
  const writer = await agent(t, AGENTS.writer);
  const { key } = await admin.mutation(api.agentApiKeys.create, { agentId: writer._id });
  return { t, departmentId, admin, grace, writer, key };
}

/** One call of the messaging HTTP API with `key` (none for null); a string body is sent as it is, anything else as JSON. */
export async function callMessagingApi(t: TestConvex, key: string | null, method: "GET" | "POST", path: string, body?: unknown) {
  const headers: Record<string, string> = key === null ? {} : { Authorization: `Bearer ${key}` };
  const response = await t.fetch(path, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as ApiBody };
}

/** The arguments of the external call `pausedOnExternalCall` pauses on (`web_fetch`, canonical JSON). */
export const EXTERNAL_CALL_ARGS = '{"url":"https://example.com/pricing"}';

/** Where a run paused on its `web_fetch` call at `index` stands (brain/writes pause's `state`). */
export function externalCallState(index = 2) {
  return {
    conversation: [],
    round: 0,
    index,
    nextIndex: index + 1,
    call: { name: "web_fetch", args: EXTERNAL_CALL_ARGS },
    reply: `Let me look.\n[TOOL: web_fetch ARG: ${EXTERNAL_CALL_ARGS}]`,
    before: [],
    after: [],
    seen: [`call web_fetch ${EXTERNAL_CALL_ARGS}`],
  };
}

/** A run of the agent's (Writer's unless named) on the task, paused on its external call at `index`; returns its call id too. */
export async function pausedOnExternalCall(t: TestConvex, taskId: Id<"tasks">, index = 2, agentKey: string = AGENTS.writer) {
  const runId = await insertRun(t, agentKey, taskId);
  const paused = await t.mutation(internal.brain.writes.pause, { runId, attempt: 1, request: { kind: "tool_output", tool: "web_fetch", args: EXTERNAL_CALL_ARGS }, state: externalCallState(index) });
  expect(paused).toBe("ok");
  return { runId, callId: `${runId}:${index}` };
}

// ---- files on messages: uploads through a grant's URL, as the app makes them ----

/** convex-test records no content type: set it as storage would from the upload's Content-Type. */
export async function setContentType(t: TestConvex, storageId: Id<"_storage">, contentType: string) {
  await t.run(async () => {
    const convex = (globalThis as unknown as { Convex: { asyncSyscall(op: string, args: string): Promise<string> } }).Convex;
    await convex.asyncSyscall("1.0/shallowMerge", JSON.stringify({ table: "_storage", id: storageId, value: { contentType } }));
  });
}

/** A blob put in storage some other way than an upload URL (no grant binds it to anyone). */
export async function stored(t: TestConvex, content: string | Uint8Array, contentType: string): Promise<Id<"_storage">> {
  const storageId = await t.run(async (ctx) => await ctx.storage.store(new Blob([content as BlobPart])));
  await setContentType(t, storageId, contentType);
  return storageId;
}

/** POSTs a file to an upload URL; the route's answer. */
export async function postUpload(t: TestConvex, url: string, content: string | Uint8Array, contentType: string, headers: Record<string, string> = {}) {
  const { pathname, search } = new URL(url);
  return await t.fetch(`${pathname}${search}`, { method: "POST", headers: { "Content-Type": contentType, ...headers }, body: content as BodyInit });
}

/** POSTs a file to an upload URL (a grant's, from generateUploadUrl) and returns the stored file's id, its type recorded. */
export async function uploadThrough(t: TestConvex, url: string, content: string | Uint8Array, contentType: string): Promise<Id<"_storage">> {
  const response = await postUpload(t, url, content, contentType);
  if (response.status !== 200) throw new Error(`the upload answered ${response.status}: ${await response.text()}`);
  const { storageId } = (await response.json()) as { storageId: Id<"_storage"> };
  await setContentType(t, storageId, contentType);
  return storageId;
}

export async function blobExists(t: TestConvex, storageId: Id<"_storage">): Promise<boolean> {
  return await t.run(async (ctx) => (await ctx.db.system.get("_storage", storageId)) !== null);
}
