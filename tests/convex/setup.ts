/// <reference types="vite/client" />
import { convexTest } from "convex-test";
import type { FunctionArgs } from "convex/server";
import { ConvexError } from "convex/values";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import type { Doc, Id } from "../../convex/_generated/dataModel";
import type { ErrorCode } from "../../convex/lib/errors";
import schema from "../../convex/schema";
import type { TaskStatus } from "../../convex/validators";

export const modules = import.meta.glob("../../convex/**/*.*s");

/** A fresh in-memory deployment. */
export function setupTest() {
  return convexTest(schema, modules);
}

export type TestConvex = ReturnType<typeof setupTest>;

/** An identity as the local sign-in or Clerk would present it. */
export function asUser(t: TestConvex, name: string) {
  return t.withIdentity({ name, subject: `user:${name.toLowerCase()}`, issuer: "maestro-local" });
}

/** Seeds the demo department and signs `name` in as its first member (an admin). */
export async function seedDemoWithAdmin(t: TestConvex, name = "Ada") {
  const departmentId = await t.mutation(internal.seed.demo, {});
  const admin = asUser(t, name);
  await admin.mutation(api.members.ensureMe, {});
  return { departmentId, admin };
}

/** A second department with one member of its own, to test that ids of other departments are refused. */
export async function createOtherDepartment(t: TestConvex, memberName = "Mallory") {
  const departmentId = await t.run(async (ctx) => {
    const id: Id<"departments"> = await ctx.db.insert("departments", { name: "Other", slug: "other", chatSessionId: "other-session" });
    await ctx.db.insert("members", { departmentId: id, tokenIdentifier: `maestro-local|user:${memberName.toLowerCase()}`, name: memberName, role: "admin" });
    return id;
  });
  return { departmentId, member: asUser(t, memberName) };
}

/** What `asUser` returns: one signed-in actor. */
export type Actor = ReturnType<typeof asUser>;

/** Session keys of the seeded "product" squad. */
export const AGENTS = {
  jarvis: "agent:jarvis:product",
  devBot: "agent:dev-bot:product",
  writer: "agent:writer:product",
  archie: "agent:archie:product",
} as const;

/** The key notifications and mentions use for a person signed in with `asUser(t, name)`. */
export function memberKeyOf(name: string): string {
  return `member:maestro-local|user:${name.toLowerCase()}`;
}

/** Signs `name` in (joining every existing department as a member) and returns the actor. */
export async function signIn(t: TestConvex, name: string): Promise<Actor> {
  const actor = asUser(t, name);
  await actor.mutation(api.members.ensureMe, {});
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

/** The id of a task that existed once and no longer does. */
export async function deletedTaskId(t: TestConvex, departmentId: Id<"departments">): Promise<Id<"tasks">> {
  return await t.run(async (ctx) => {
    const id = await ctx.db.insert("tasks", {
      departmentId,
      title: "Gone",
      description: "",
      status: "inbox",
      priority: "low",
      tags: [],
      assigneeSessionKeys: [],
      createdBy: "system",
      order: 0,
      updatedAt: 0,
    });
    await ctx.db.delete("tasks", id);
    return id;
  });
}

/** A task of `createOtherDepartment`'s department, to show ids of other departments are refused. */
export async function createOtherTask(t: TestConvex, departmentId: Id<"departments">): Promise<Id<"tasks">> {
  return await t.run(async (ctx) =>
    await ctx.db.insert("tasks", {
      departmentId,
      title: "Their task",
      description: "",
      status: "inbox",
      priority: "low",
      tags: [],
      assigneeSessionKeys: [],
      createdBy: "system",
      order: 1024,
      updatedAt: 0,
    }),
  );
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

/** A run inserted by hand, as if `brain/run:execute` had started it. */
export async function insertRun(t: TestConvex, sessionKey: string, taskId: Id<"tasks">, status: Doc<"runs">["status"] = "running"): Promise<Id<"runs">> {
  const a = await agent(t, sessionKey);
  return await t.run(async (ctx) =>
    await ctx.db.insert("runs", {
      departmentId: a.departmentId,
      agentId: a._id,
      agentSessionKey: a.sessionKey,
      taskId,
      trigger: { kind: "assigned" },
      status,
      iterations: 0,
      toolCalls: [],
      promptTokens: 0,
      completionTokens: 0,
      foldedTriggers: 0,
      rerunRequested: false,
      delegations: 0,
      guards: [],
      timings: [],
      startedAt: status === "running" ? Date.now() : undefined,
    }),
  );
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
