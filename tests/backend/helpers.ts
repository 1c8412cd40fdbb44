import { mkdtempSync, rmSync } from "node:fs";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { api } from "../../convex/_generated/api";
import { tmpdir } from "node:os";
import path from "node:path";
import { startBackend, type Backend, type BackendOptions } from "../../tools/local-backend/server";

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

/** Signs `name` in through the local sign-in endpoint, as the app does; returns the token. */
export async function signInOverHttp(url: string, name: string, password: string): Promise<string> {
  const response = await fetch(`${url}/maestro/auth/signin`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, password }),
  });
  if (!response.ok) throw new Error(`Sign-in failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/**
 * Seeds the demo squad with the admin key and makes the holder of `token`
 * its first member (so an admin). Returns both clients and the department.
 */
export async function seedDemoSquad(url: string, adminKey: string, token: string) {
  const admin = adminClient(url, adminKey);
  await admin.mutation(anyApi.seed.demo, {});
  const member = new ConvexHttpClient(url);
  member.setAuth(token);
  await member.mutation(api.members.ensureMe, {});
  const departmentId = (await member.query(api.departments.listMine, {}))[0]._id;
  return { admin, member, departmentId };
}
