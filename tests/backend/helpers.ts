import { mkdtempSync, rmSync } from "node:fs";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { importPKCS8, SignJWT } from "jose";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startBackend, type Backend, type BackendOptions } from "../../tools/local-backend/server";
import { scriptedModelEnv, startScriptedModel, type Script, type ScriptedModel } from "./scriptedModel";

export const PROJECT_ROOT = path.resolve(import.meta.dirname, "../..");
export const FIXTURE_CONVEX_DIR = path.join(PROJECT_ROOT, "tests/fixtures/conformance/convex");

export function tempDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), "maestro-backend-test-"));
}

/** A backend on free loopback ports over a fresh data folder; `stop` removes the folder. */
export async function startTestBackend(
  overrides: Partial<BackendOptions> = {},
): Promise<Backend & { dataDir: string; stop(): Promise<void> }> {
  const dataDir = overrides.dataDir ?? tempDataDir();
  const backend = await startBackend({
    projectRoot: PROJECT_ROOT,
    convexDir: FIXTURE_CONVEX_DIR,
    port: 0,
    sitePort: 0,
    password: "test-password",
    log: () => {},
    ...overrides,
    dataDir,
  });
  return {
    ...backend,
    dataDir,
    async stop() {
      await backend.close();
      if (overrides.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** An HTTP client holding the deployment's admin key, which may call internal functions (as `npx convex run` does). */
export function adminClient(url: string, adminKey: string): ConvexHttpClient {
  const client = new ConvexHttpClient(url);
  // Not in the client's public types; the same call the Convex CLI makes.
  (client as unknown as { setAdminAuth(key: string): void }).setAdminAuth(adminKey);
  return client;
}

/**
 * A token as Convex Auth signs it for this backend (its own key, its site URL
 * as issuer, audience "convex"); `expiresInSeconds` may be negative.
 */
export async function signTestToken(
  backend: { siteUrl: string },
  claims: { sub: string; name?: string },
  expiresInSeconds = 3600,
): Promise<string> {
  const key = await importPKCS8(process.env.JWT_PRIVATE_KEY!.replace(/ (?!PRIVATE|KEY)/g, "\n"), "RS256");
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT({ name: claims.name })
    .setProtectedHeader({ alg: "RS256" })
    .setSubject(claims.sub)
    .setIssuer(backend.siteUrl)
    .setAudience("convex")
    .setIssuedAt(now)
    .setExpirationTime(now + expiresInSeconds)
    .sign(key);
}

/** POST /auth/password on the HTTP actions port, as the app signs in; the answer's status and body. */
export async function passwordRoute(siteUrl: string, body: Record<string, string>) {
  const response = await fetch(`${siteUrl}/auth/password`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get("Retry-After"), body: (await response.json()) as Record<string, string> };
}

/** Signs in with an email and password; returns the session token (throws on refusal). */
export async function signInWithPassword(siteUrl: string, email: string, password: string): Promise<string> {
  const result = await passwordRoute(siteUrl, { flow: "signIn", email, password });
  if (result.status !== 200) throw new Error(`Sign-in failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body.token;
}

/**
 * Seeds the demo squad with the admin key and creates the owner account
 * (`name` <name>@example.com, through the first-run setup with the WebUI
 * password), who owns it. Returns the admin client, the owner's client and
 * token, and the department.
 */
export async function seedDemoSquad(backend: { url: string; siteUrl: string; adminKey: string }, name = "Ada", setupPassword = "test-password") {
  const admin = adminClient(backend.url, backend.adminKey);
  await admin.mutation(anyApi.seed.demo, {});
  const email = `${name.toLowerCase()}@example.com`;
  const result = await passwordRoute(backend.siteUrl, { flow: "signUp", email, password: OWNER_PASSWORD, name, setupPassword });
  if (result.status !== 200) throw new Error(`Owner setup failed: ${result.status} ${JSON.stringify(result.body)}`);
  const member = new ConvexHttpClient(backend.url);
  member.setAuth(result.body.token);
  const departmentId = (await member.query(api.departments.listMine, {}))[0]._id;
  return { admin, member, departmentId, token: result.body.token, email };
}

/** The password `seedDemoSquad` gives the owner. */
export const OWNER_PASSWORD = "owner password 1";

/**
 * Creates `count` specialists named `<prefix> 000`, `<prefix> 001`, … with
 * `allowedTools`, and an API key for each; returns the keys in order.
 */
export async function agentsWithKeys(
  client: ConvexHttpClient,
  departmentId: Id<"departments">,
  { count, prefix, allowedTools }: { count: number; prefix: string; allowedTools: string[] },
): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const agentId = await client.mutation(api.agents.create, {
      departmentId,
      name: `${prefix} ${String(i).padStart(3, "0")}`,
      role: "Specialist",
      kind: "specialist",
      systemPrompt: "",
      isSquadLead: false,
      allowedTools,
    });
    keys.push((await client.mutation(api.agentApiKeys.create, { agentId })).key);
  }
  return keys;
}

/**
 * What the run tests read and do through the squad owner's client (read when
 * called, so `squad` may be filled in by a `beforeAll`): a task's runs and
 * thread, its subtasks, and a new task whose thread gets an @mention.
 */
export function squadTasks(squad: { member: ConvexHttpClient; departmentId: Id<"departments"> }) {
  const runsOf = async (taskId: Id<"tasks">) => await squad.member.query(api.runs.listForTask, { taskId });
  return {
    runsOf,
    /** Waits until the task has `count` runs and the newest has `status`, and returns it. */
    async newestRun(taskId: Id<"tasks">, status: string, count = 1) {
      await waitFor(async () => {
        const runs = await runsOf(taskId);
        return runs.length >= count && runs[0].status === status;
      }, 20_000, `the run to be ${status}`);
      return (await runsOf(taskId))[0];
    },
    /** The task's messages, oldest first. */
    async thread(taskId: Id<"tasks">) {
      return (await squad.member.query(api.messages.list, { taskId, paginationOpts: { numItems: 100, cursor: null } })).page.reverse();
    },
    /** The tasks whose parent is `parent`, by title. */
    async childrenOf(parent: Id<"tasks">) {
      const tasks = (await squad.member.query(api.tasks.list, { departmentId: squad.departmentId })).flatMap((c) => c.tasks);
      const children = [];
      for (const task of tasks) {
        const detail = await squad.member.query(api.tasks.get, { taskId: task._id });
        if (detail.parentTaskId === parent) children.push(detail);
      }
      return children.sort((a, b) => a.title.localeCompare(b.title));
    },
    /** A new task titled `title` whose thread gets `content`. */
    async mention(title: string, content: string) {
      const taskId = await squad.member.mutation(api.tasks.create, { departmentId: squad.departmentId, title, description: "", assigneeSessionKeys: [] });
      await squad.member.mutation(api.messages.create, { taskId, content });
      return taskId;
    },
  };
}

/** What `scriptedSquad` holds for a test file once its `beforeAll` ran. */
export interface ScriptedSquad {
  backend: Awaited<ReturnType<typeof startTestBackend>>;
  model: ScriptedModel;
  /** Ada, the demo squad's owner, signed in. */
  member: ConvexHttpClient;
  departmentId: Id<"departments">;
}

/**
 * For a whole test file: the app's backend with the demo squad, its agents
 * thinking with a scripted streaming model that answers with `answer`, with
 * no retries (a scripted failure ends the run). Registers the file's
 * `beforeAll` and `afterAll`.
 */
export function scriptedSquad(answer: Script): ScriptedSquad {
  const squad = {} as ScriptedSquad;
  beforeAll(async () => {
    squad.model = await startScriptedModel(answer);
    Object.assign(process.env, scriptedModelEnv(squad.model), { MAESTRO_MODEL_MAX_RETRIES: "0" });
    squad.backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex") });
    ({ member: squad.member, departmentId: squad.departmentId } = await seedDemoSquad(squad.backend));
  });
  afterAll(async () => {
    await squad.backend?.stop();
    await squad.model?.close();
  });
  return squad;
}
