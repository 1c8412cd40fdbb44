import { mkdtempSync, rmSync } from "node:fs";
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
