/**
 * Builds the project's `convex/` folder with esbuild and imports the result,
 * the way Convex bundles functions on push. Every build goes to a fresh
 * folder, so a rebuild after an edit yields fresh module instances.
 */
import { build } from "esbuild";
import { readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** A loaded `convex/` tree: module path without extension ("tools/delegation") → its exports. */
export type ModuleMap = Map<string, Record<string, unknown>>;

const SOURCE_FILE = /\.(ts|tsx|js|jsx|mjs)$/;
const SKIPPED_FILE = /(\.d\.ts|\.test\.[jt]sx?|\.config\.[jt]s)$/;

/** Files Convex treats as function modules: everything but declarations, tests and config. */
export function listConvexSources(convexDir: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(".") || entry === "node_modules") continue;
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (SOURCE_FILE.test(entry) && !SKIPPED_FILE.test(entry)) files.push(full);
    }
  };
  walk(convexDir);
  return files.sort();
}

/** Bundles and imports every module of `convexDir` into `buildRoot/<generation>`. */
export async function buildConvexModules(
  convexDir: string,
  buildRoot: string,
  generation: number,
): Promise<ModuleMap> {
  const entryPoints = listConvexSources(convexDir);
  const outdir = path.join(buildRoot, String(generation));
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints,
    outbase: convexDir,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    outExtension: { ".js": ".mjs" },
    logLevel: "silent",
    sourcemap: "inline",
  });
  const modules: ModuleMap = new Map();
  for (const entry of entryPoints) {
    const relative = path.relative(convexDir, entry).replace(SOURCE_FILE, "").split(path.sep).join("/");
    const file = path.join(outdir, `${relative}.mjs`);
    modules.set(relative, (await import(pathToFileURL(file).href)) as Record<string, unknown>);
  }
  return modules;
}
