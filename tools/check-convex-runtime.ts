/**
 * Proves `convex/` would also run on real Convex, whose default runtime has
 * no Node built-ins: every module without "use node" is bundled for the
 * browser platform with Convex's conditions, as Convex bundles it, and any Node import fails the
 * check; every "use node" module may hold actions only.
 *
 * `npm run check:convex` (part of `npm test`).
 */
import { build } from "esbuild";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildConvexModules, listConvexSources } from "./local-backend/modules.js";

const USE_NODE = /^\s*(?:\/\/[^\n]*\n|\/\*[\s\S]*?\*\/\s*)*\s*["']use node["'];?/;
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Whether a module opts into Convex's Node runtime. */
export function usesNodeRuntime(source: string): boolean {
  return USE_NODE.test(source);
}

/** Problems found in `convexDir`; empty when it is fit for Convex. */
export async function checkConvexRuntime(convexDir: string, projectRoot: string): Promise<string[]> {
  const problems: string[] = [];
  const sources = listConvexSources(convexDir).filter((file) => !file.includes(`${path.sep}_generated${path.sep}`));
  const nodeModules = new Set<string>();
  for (const file of sources) {
    const relative = path.relative(convexDir, file);
    if (usesNodeRuntime(readFileSync(file, "utf8"))) {
      nodeModules.add(relative.replace(/\.[jt]sx?$/, "").split(path.sep).join("/"));
      continue;
    }
    try {
      await build({
        entryPoints: [file],
        bundle: true,
        write: false,
        // As the Convex CLI bundles the default runtime: the browser platform with its "convex" and "module"
        // conditions, so packages that ship a web build (Convex Auth's crypto) resolve to it.
        platform: "browser",
        conditions: ["convex", "module"],
        format: "esm",
        logLevel: "silent",
        plugins: [
          {
            name: "refuse-node-builtins",
            setup(b) {
              b.onResolve({ filter: /.*/ }, (args) =>
                NODE_BUILTINS.has(args.path)
                  ? { errors: [{ text: `imports the Node built-in "${args.path}" (from ${path.relative(convexDir, args.importer)}); Convex's default runtime has none. Move it to a "use node" action.` }] }
                  : undefined,
              );
            },
          },
        ],
      });
    } catch (error) {
      const messages = (error as { errors?: Array<{ text: string }> }).errors?.map((e) => e.text) ?? [String(error)];
      for (const message of messages) problems.push(`${relative}: ${message}`);
    }
  }
  if (nodeModules.size > 0) {
    const cacheDir = path.join(projectRoot, "node_modules", ".cache");
    mkdirSync(cacheDir, { recursive: true });
    const buildRoot = mkdtempSync(path.join(cacheDir, "maestro-check-"));
    try {
      const modules = await buildConvexModules(convexDir, buildRoot, 1);
      for (const modulePath of nodeModules) {
        for (const [name, value] of Object.entries(modules.get(modulePath) ?? {})) {
          const fn = value as { isQuery?: boolean; isMutation?: boolean } | null;
          if (fn?.isQuery || fn?.isMutation) {
            problems.push(`${modulePath}: "use node" files may hold actions only, but exports ${fn.isQuery ? "query" : "mutation"} "${name}".`);
          }
        }
      }
    } finally {
      rmSync(buildRoot, { recursive: true, force: true });
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const convexDir = path.resolve(process.argv[2] ?? path.join(projectRoot, "convex"));
  const problems = await checkConvexRuntime(convexDir, projectRoot);
  if (problems.length > 0) {
    console.error(`convex/ would not run on Convex:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    process.exit(1);
  }
  console.log(`check:convex: ${listConvexSources(convexDir).length} modules fit Convex's runtimes (browser bundle with Convex's conditions, "use node" holds actions only).`);
}
