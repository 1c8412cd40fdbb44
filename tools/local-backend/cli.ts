/**
 * `npm run backend -- [--port 3210] [--site-port 3211] [--data-dir .maestro/data] [--no-watch]`
 * Starts the offline backend alone (npm start also serves the app).
 *
 * `npm run backend -- repair [--data-dir .maestro/data]`
 * Cuts a damaged write-ahead log at its first bad record, keeping every
 * record before it and saving the rest to `wal.jsonl.corrupt-<timestamp>`.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { appOrigins, loadConfig, webuiPassword } from "../config.js";
import { startBackend } from "./server.js";
import { repairLog, WalCorruptError } from "./storage.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: "string" },
    "site-port": { type: "string" },
    "data-dir": { type: "string" },
    "convex-dir": { type: "string" },
    "no-watch": { type: "boolean", default: false },
  },
});

const projectRoot = process.cwd();
const dataDir = path.resolve(values["data-dir"] ?? process.env.MAESTRO_DATA_DIR ?? path.join(projectRoot, ".maestro", "data"));

if (positionals[0] === "repair") {
  const result = repairLog(dataDir);
  if (result.asideFile === null) {
    console.log(`[backend] ${path.join(dataDir, "wal.jsonl")} has no damaged record (${result.kept} good); nothing changed.`);
  } else {
    console.log(
      `[backend] Kept ${result.kept} record(s) of ${path.join(dataDir, "wal.jsonl")}; moved ${result.movedBytes} bytes ` +
        `from byte offset ${result.offset} on to ${result.asideFile}. The backend can start now.`,
    );
  }
  process.exit(0);
} else if (positionals.length > 0) {
  console.error(`Unknown command: ${positionals.join(" ")} (the only command is \`repair\`; with none the backend starts).`);
  process.exit(2);
}

const config = loadConfig(projectRoot);
// Functions read the JSON config (chat limits, the toggle, the WebUI password) from the environment.
process.env.MAESTRO_CONFIG_JSON = JSON.stringify(config);
const appPort = Number(process.env.MAESTRO_WEBUI_PORT ?? config.webui.port);
let backend;
try {
  backend = await startBackend({
    projectRoot,
    convexDir: values["convex-dir"] === undefined ? undefined : path.resolve(values["convex-dir"]),
    dataDir,
    port: Number(values.port ?? process.env.MAESTRO_API_PORT ?? 3210),
    sitePort: Number(values["site-port"] ?? process.env.MAESTRO_SITE_PORT ?? 3211),
    password: webuiPassword(config),
    watch: !values["no-watch"],
    // The app, when run on its own (`npx vite`), is served from the configured WebUI port.
    allowedOrigins: appOrigins(appPort),
    allowedHosts: [config.webui.host],
  });
} catch (error) {
  if (!(error instanceof WalCorruptError)) throw error;
  console.error(`[backend] ${error.message}`);
  process.exit(1);
}
// Before the READY line: whoever waits for it may stop the backend the moment it reads it, and a
// signal with no handler yet kills the process before it removes its build folder.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void backend.close().then(() => process.exit(0));
  });
}
console.log(`[backend] Convex API ${backend.url}  HTTP actions ${backend.siteUrl}`);
// The key itself is never printed: logs get copied around; the file is owner-only.
console.log(`[backend] admin key in ${backend.adminKeyFile}`);
console.log(`MAESTRO_BACKEND_READY ${JSON.stringify({ url: backend.url, siteUrl: backend.siteUrl, adminKeyFile: backend.adminKeyFile })}`);
