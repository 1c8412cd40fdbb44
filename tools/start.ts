/**
 * `npm start`: the offline backend, the demo squad on first start, and the
 * app, in one process. Ports and the data folder come from the environment
 * (MAESTRO_API_PORT, MAESTRO_SITE_PORT, MAESTRO_WEBUI_PORT, MAESTRO_DATA_DIR)
 * or `maestro.config.json`. With no model configured (OPENAI_API_KEY /
 * OPENAI_BASE_URL), the agents think with the offline demo model.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import os from "node:os";
import { build, createServer, preview, type ResolvedServerUrls } from "vite";
import { warmApp } from "./warmApp.js";
import { ModelError, modelConfigFromEnv } from "../convex/lib/modelConfig.js";
import { allowedHostnames, appOrigins, envList, loadConfig, portInUseMessage, webuiPassword } from "./config.js";
import { paceFromEnv } from "./demo-model/pacing.js";
import { DEMO_MODEL_ID, DEMO_MODEL_LABEL, startDemoModel, type DemoModel } from "./demo-model/server.js";
import { makeOwnedDir, pruneOrphanedDirs, releaseOwnedDir } from "./local-backend/ownedDirs.js";
import { ownerMissing, startBackend, webuiPasswordLine } from "./local-backend/server.js";
import { WalCorruptError } from "./local-backend/storage.js";

/** The built app's folder in the system's temporary folder: `maestro-app-<pid>-<random>`. */
const APP_BUILD_PREFIX = "maestro-app-";
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const config = loadConfig(projectRoot);
// Functions read the JSON config (chat limits, the toggle, the WebUI password) from the environment.
process.env.MAESTRO_CONFIG_JSON = JSON.stringify(config);
const password = webuiPassword(config);
const dataDir = process.env.MAESTRO_DATA_DIR ? path.resolve(process.env.MAESTRO_DATA_DIR) : undefined;

// Functions run in this process and read the model settings from process.env,
// so the demo model's must be in place before the backend starts.
let demoModel: DemoModel | null = null;
let modelLine: string;
try {
  const modelConfig = modelConfigFromEnv(process.env);
  if (modelConfig === null) {
    // Paced so people can watch the squad work (MAESTRO_DEMO_PACE_MS; the browser tests set 0).
    demoModel = await startDemoModel({ paceMs: paceFromEnv(process.env.MAESTRO_DEMO_PACE_MS) });
    Object.assign(process.env, {
      OPENAI_BASE_URL: demoModel.baseURL,
      OPENAI_API_KEY: "demo",
      MAESTRO_DEFAULT_MODEL: DEMO_MODEL_ID,
      MAESTRO_MODEL_LABEL: DEMO_MODEL_LABEL,
    });
    modelLine = `${DEMO_MODEL_LABEL} — set OPENAI_API_KEY / OPENAI_BASE_URL to use a real one`;
  } else {
    const server = (modelConfig.baseURL ?? "https://api.openai.com/v1").replace(/^(https?:\/\/)[^/@]*@/i, "$1");
    modelLine = `${modelConfig.label ?? modelConfig.defaultModel} at ${server} (agents may name their own model)`;
  }
} catch (error) {
  if (!(error instanceof ModelError)) throw error;
  console.error(`Model settings: ${error.message}`);
  process.exit(1);
}

const host = config.webui.host === "localhost" ? "127.0.0.1" : config.webui.host;
const appPort = Number(process.env.MAESTRO_WEBUI_PORT ?? config.webui.port);
const appOrigin = `http://${host.includes(":") ? `[${host}]` : host}:${appPort}`;
const allowedOrigins = [...new Set([...appOrigins(appPort), appOrigin])];
// The HTTP actions (sign-in at /auth/password) grant CORS to these too.
process.env.MAESTRO_CORS_ORIGINS = [...envList(process.env.MAESTRO_CORS_ORIGINS), ...allowedOrigins].join(",");
const apiPort = Number(process.env.MAESTRO_API_PORT ?? 3210);
const sitePort = Number(process.env.MAESTRO_SITE_PORT ?? 3211);
/** A taken port is one plain line naming the variable that moves it, not a stack trace. */
function exitIfPortTaken(error: unknown): void {
  const line = portInUseMessage(error, { MAESTRO_API_PORT: apiPort, MAESTRO_SITE_PORT: sitePort, MAESTRO_WEBUI_PORT: appPort });
  if (line === null) return;
  console.error(line);
  process.exit(1);
}
const backend = await startBackend({
  projectRoot,
  dataDir,
  appUrl: appOrigin,
  // Only the app's own pages may call the API from a browser (plus MAESTRO_CORS_ORIGINS).
  allowedOrigins,
  allowedHosts: [config.webui.host],
  port: apiPort,
  sitePort,
  password,
  watch: process.env.MAESTRO_WATCH !== "0",
}).catch((error: unknown) => {
  exitIfPortTaken(error);
  // A damaged log is the user's to repair (the message says how), not a crash with a stack.
  if (!(error instanceof WalCorruptError)) throw error;
  console.error(error.message);
  process.exit(1);
});

const seeded = await backend.engine.runMutation("seed:demo", {}, { kind: "admin" });
if (!seeded.ok) {
  console.error(`Could not seed the demo squad: ${seeded.errorMessage}`);
  process.exit(1);
}

// Vite gives variables already in the environment priority over .env files.
process.env.VITE_CONVEX_URL = backend.url;
process.env.VITE_CONVEX_SITE_URL = backend.siteUrl;
const configFile = path.join(projectRoot, "vite.config.ts");
const viteHosts = allowedHostnames([config.webui.host]);
// The built app by default: a handful of files, so the first page is usable about as soon as it
// loads. MAESTRO_DEV=1 serves the sources with Vite's dev server instead (hot reload), warmed
// before the address is printed (tools/warmApp.ts).
const dev = process.env.MAESTRO_DEV === "1";
// The app's build is this process's own folder: removed at any exit that runs JavaScript (Vite's
// own SIGTERM handler exits without waiting for ours), and by the next start after a kill -9.
pruneOrphanedDirs(os.tmpdir(), APP_BUILD_PREFIX);
const builtDir = dev ? null : makeOwnedDir(os.tmpdir(), APP_BUILD_PREFIX);
let app: { resolvedUrls: ResolvedServerUrls | null; close(): Promise<void> };
try {
  if (builtDir === null) {
    const server = await createServer({
      // vite.config.ts sets the root to src/, so the project root and its data folder are never served.
      configFile,
      server: { host, port: appPort, strictPort: true, allowedHosts: viteHosts },
      clearScreen: false,
      logLevel: "warn",
    });
    await server.listen();
    app = server;
  } else {
    // Only errors: a bundle-size hint is for developers, not for the person starting Maestro.
    await build({ configFile, logLevel: "error", build: { outDir: builtDir, emptyOutDir: true } });
    app = await preview({ configFile, logLevel: "warn", build: { outDir: builtDir }, preview: { host, port: appPort, strictPort: true, allowedHosts: viteHosts } });
  }
} catch (error) {
  await backend.close();
  if (builtDir !== null) releaseOwnedDir(builtDir);
  exitIfPortTaken(error);
  throw error;
}
const needsOwner = await ownerMissing(backend.engine);
const ownerLine = needsOwner ? "\n  First run      open the app and create the owner account (your name, email and a password)\n" : "";
const appUrl = app.resolvedUrls?.local[0] ?? `http://${host}:${appPort}/`;
// The address is printed once the first page is ready to be served at once (tools/warmApp.ts).
if (dev && process.env.MAESTRO_WARM !== "0") {
  await warmApp(appUrl).catch((error: unknown) => console.warn(`Warming the app failed (the first page will be slower): ${String(error)}`));
}

// Before the address is printed: whoever waits for it may stop us the moment they read it.
let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    void Promise.all([app.close(), backend.close(), demoModel?.close()]).then(() => {
      if (builtDir !== null) releaseOwnedDir(builtDir);
      process.exit(0);
    });
  });
}

console.log(`
  Maestro is running (offline)
  App            ${appUrl}
  Convex API     ${backend.url}   HTTP actions ${backend.siteUrl}
  Model          ${modelLine}
  Data           ${dataDir ?? path.join(projectRoot, ".maestro", "data")}
  Admin key      in ${backend.adminKeyFile}
  WebUI password ${webuiPasswordLine(password !== null, needsOwner)}
${ownerLine}`);
console.log(`MAESTRO_READY ${JSON.stringify({ appUrl, url: backend.url, siteUrl: backend.siteUrl })}`);
