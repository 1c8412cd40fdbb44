/**
 * The "no owner yet" warning (issue 42): a backend with no WebUI password
 * warns that anyone could create the owner account only while there is no
 * owner; restarted over the same data once the owner exists, it says
 * nothing of it, and `npm start`'s banner line says the setup is closed.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { ownerSetupWarning, webuiPasswordLine } from "../../tools/local-backend/server";
import { passwordRoute, PROJECT_ROOT, startTestBackend, tempDataDir } from "./helpers";

const dataDir = tempDataDir();

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the app's backend over `dataDir` with no WebUI password; what it logged at start, and the backend. */
async function start() {
  const lines: string[] = [];
  const backend = await startTestBackend({ convexDir: path.join(PROJECT_ROOT, "convex"), dataDir, password: null, log: (line) => lines.push(line) });
  return { backend, lines };
}

describe("the no-owner warning", () => {
  test("warns while there is no owner, and no longer after a restart once there is one", async () => {
    const first = await start();
    try {
      expect(first.lines.filter((line) => line.includes("SECURITY WARNING"))).toHaveLength(1);
      expect(first.lines.join("\n")).toContain("no owner yet");
      const signUp = await passwordRoute(first.backend.siteUrl, { flow: "signUp", email: "ada@example.com", password: "owner password 1", name: "Ada" });
      expect(signUp.status).toBe(200);
    } finally {
      await first.backend.stop();
    }
    const again = await start();
    try {
      expect(again.lines.filter((line) => line.includes("SECURITY WARNING") || line.includes("no owner"))).toEqual([]);
    } finally {
      await again.backend.stop();
    }
  });

  test("the words: a warning and a banner line true to whether an owner exists", () => {
    expect(ownerSetupWarning(false, true)).toContain("no owner yet");
    expect(ownerSetupWarning(false, false)).toBeNull();
    expect(ownerSetupWarning(true, true)).toBeNull();
    expect(webuiPasswordLine(false, true)).toContain("no owner yet");
    expect(webuiPasswordLine(false, false)).not.toMatch(/owner yet|anyone who can reach/);
    expect(webuiPasswordLine(false, false)).toContain("the owner account exists");
    expect(webuiPasswordLine(true, true)).toContain("the owner setup asks for it");
  });
});
