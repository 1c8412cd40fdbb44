/**
 * `npm start` on a port something else holds: one plain line naming the
 * variable to change (no stack trace), and a failing exit code. Both the
 * backend's API port and the app's port are tried.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { portInUseMessage } from "../../tools/config";
import { freePort } from "../browser/stack";
import { PROJECT_ROOT } from "./helpers";

let holder: Server;
let takenPort: number;
const dataDirs: string[] = [];

beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  takenPort = (holder.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs tools/start.ts with `ports` (unset ones free) until it exits; its code and everything it printed. */
async function startWith(ports: Record<string, number>): Promise<{ code: number | null; output: string }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "maestro-ports-"));
  dataDirs.push(dataDir);
  const env: Record<string, string> = {
    ...process.env,
    MAESTRO_API_PORT: String(await freePort()),
    MAESTRO_SITE_PORT: String(await freePort()),
    MAESTRO_WEBUI_PORT: String(await freePort()),
    MAESTRO_DATA_DIR: dataDir,
    MAESTRO_WATCH: "0",
    MAESTRO_WEBUI_PASSWORD: "ports-test-password",
    MAESTRO_CONFIG: path.join(dataDir, "none.json"),
    VITE_CLERK_PUBLISHABLE_KEY: "",
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: "",
    NO_COLOR: "1",
  };
  for (const [name, port] of Object.entries(ports)) env[name] = String(port);
  const child = spawn(path.join(PROJECT_ROOT, "node_modules/.bin/tsx"), ["tools/start.ts"], { cwd: PROJECT_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const killer = setTimeout(() => child.kill("SIGKILL"), 50_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(killer);
  return { code, output };
}

describe("a port already in use", () => {
  test.each(["MAESTRO_API_PORT", "MAESTRO_WEBUI_PORT"])("taken %s: one line naming it, no stack trace, exit code 1", async (variable) => {
    const { code, output } = await startWith({ [variable]: takenPort });
    expect(code).toBe(1);
    const lines = output.split("\n").filter((line) => line.trim() !== "");
    expect(lines).toEqual([`Port ${takenPort} is already in use (another Maestro, or another program): stop it, or set ${variable} to a free port.`]);
  });

  test("the message names the variable whose port it is, and is silent on other errors", () => {
    const inUse = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:3211"), { code: "EADDRINUSE", port: 3211 });
    expect(portInUseMessage(inUse, { MAESTRO_API_PORT: 3210, MAESTRO_SITE_PORT: 3211 })).toContain("set MAESTRO_SITE_PORT to a free port");
    expect(portInUseMessage(new Error("Port 8080 is already in use"), { MAESTRO_WEBUI_PORT: 8080 })).toContain("set MAESTRO_WEBUI_PORT");
    expect(portInUseMessage(new Error("something else"), { MAESTRO_API_PORT: 3210 })).toBeNull();
    expect(portInUseMessage("EADDRINUSE", { MAESTRO_API_PORT: 3210 })).toBeNull();
  });
});
