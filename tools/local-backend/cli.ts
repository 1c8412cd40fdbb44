/**
 * `npm run backend -- [--port 3210] [--site-port 3211] [--data-dir .maestro/data] [--no-watch]`
 * Starts the offline backend alone (npm start also serves the app).
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig, webuiPassword } from "../config.js";
import { startBackend } from "./server.js";

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    "site-port": { type: "string" },
    "data-dir": { type: "string" },
    "convex-dir": { type: "string" },
    "no-watch": { type: "boolean", default: false },
  },
});

const projectRoot = process.cwd();
const config = loadConfig(projectRoot);
// Functions read the JSON config (chat limits, the toggle, the WebUI password) from the environment.
process.env.MAESTRO_CONFIG_JSON = JSON.stringify(config);
const backend = await startBackend({
  projectRoot,
  convexDir: values["convex-dir"] === undefined ? undefined : path.resolve(values["convex-dir"]),
  dataDir: values["data-dir"] === undefined ? undefined : path.resolve(values["data-dir"]),
  port: Number(values.port ?? process.env.MAESTRO_API_PORT ?? 3210),
  sitePort: Number(values["site-port"] ?? process.env.MAESTRO_SITE_PORT ?? 3211),
  password: webuiPassword(config),
  watch: !values["no-watch"],
});
console.log(`[backend] Convex API ${backend.url}  HTTP actions ${backend.siteUrl}`);
console.log(`[backend] admin key: ${backend.adminKey}`);
console.log(`MAESTRO_BACKEND_READY ${JSON.stringify({ url: backend.url, siteUrl: backend.siteUrl, adminKey: backend.adminKey })}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void backend.close().then(() => process.exit(0));
  });
}
