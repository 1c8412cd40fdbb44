import path from "node:path";
import { fileURLToPath } from "node:url";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { allowedHostnames } from "./tools/config.ts";
import { devServerGuard, servedPaths } from "./tools/vite-guard.ts";

const projectRoot = path.dirname(fileURLToPath(import.meta.url));
const paths = servedPaths(projectRoot);
// Host names besides loopback come from MAESTRO_ALLOWED_HOSTS (npm start adds the configured webui.host).
const allowedHosts = allowedHostnames([]);

// Tests live in vitest.config.ts; this file is only the app build and dev server.
// The root is src/, so nothing else in the project (the data folder above all) is ever served.
export default defineConfig({
  root: paths.root,
  publicDir: paths.publicDir,
  cacheDir: paths.cacheDir,
  // .env files stay at the project root.
  envDir: projectRoot,
  // One page: the guard below gives it for the app's own addresses (/d/...); any other unknown path is a 404.
  appType: "mpa",
  build: { outDir: paths.outDir, emptyOutDir: true },
  server: { allowedHosts, fs: { strict: true, allow: paths.allow } },
  preview: { allowedHosts },
  plugins: [devServerGuard(paths), react(), tailwindcss()],
});
