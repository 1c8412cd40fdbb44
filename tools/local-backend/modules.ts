/**
 * Builds the project's `convex/` folder with esbuild and imports the result,
 * the way Convex bundles functions on push. Every build goes to a fresh
 * folder, so a rebuild after an edit yields fresh module instances.
 */
import { build, type Plugin } from "esbuild";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
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

/**
 * Bundles and imports every module of `convexDir` into `buildRoot/<generation>`
 * (or `buildRoot/<generation>/<subdir>`). An installed component's modules
 * bundle their own dependencies, which npm may have nested under the
 * component's package; only `convex` itself stays shared with the app.
 */
export async function buildConvexModules(
  convexDir: string,
  buildRoot: string,
  generation: number,
  options: { subdir?: string; bundleDependencies?: boolean } = {},
): Promise<ModuleMap> {
  const entryPoints = listConvexSources(convexDir);
  const outdir = path.join(buildRoot, String(generation), options.subdir ?? "");
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
    ...(options.bundleDependencies ? { external: ["convex", "convex/*"] } : { packages: "external" as const }),
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

/** A component installed with `app.use(...)` (or a component's own `component.use(...)`). */
export interface InstalledComponent {
  /** Its path in the deployment, as function handles name it: "rateLimiter", "rateLimiter/batchWorker". */
  path: string;
  /** The name it is installed under (the last segment of `path`). */
  name: string;
  /** The folder holding its convex.config and function modules. */
  dir: string;
  /** How its parent imported it, e.g. "@convex-dev/rate-limiter/convex.config". */
  specifier: string;
  /** Path of the parent component ("" for the app). */
  parent: string;
}

const CONFIG_FILES = ["convex.config.ts", "convex.config.js"];
const COMPONENT_NAMESPACE = "maestro-component-definition";

/** The app's `convex.config.ts` (or `.js`), or null when it installs no components. */
export function appConfigFile(convexDir: string): string | null {
  for (const file of CONFIG_FILES) {
    const full = path.join(convexDir, file);
    if (existsSync(full)) return full;
  }
  return null;
}

/**
 * Evaluates `convex/convex.config.ts` and lists every component it installs,
 * parents before children. `use()` accepts only what the Convex CLI puts in
 * place of an imported component definition (its folder and default name), so
 * each `…/convex.config` import is replaced by that, built from the imported
 * definition itself, which also carries that component's own children.
 */
export async function discoverComponents(convexDir: string, outdir: string): Promise<InstalledComponent[]> {
  const configFile = appConfigFile(convexDir);
  if (configFile === null) return [];
  // A fresh file per evaluation: Node caches modules by URL.
  const outfile = path.join(outdir, `convex.config.${++configEvaluations}.mjs`);
  const specifiers = new Map<string, string>();
  await build({
    entryPoints: [configFile],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "silent",
    plugins: [componentDefinitionPlugin(specifiers)],
  });
  const app = ((await import(pathToFileURL(outfile).href)) as { default?: DefinitionAtRuntime }).default;
  if (app === undefined || !Array.isArray(app._childComponents)) {
    throw new Error(`${configFile} must \`export default\` the result of defineApp().`);
  }
  const components: InstalledComponent[] = [];
  const visit = (definition: DefinitionAtRuntime, parent: string) => {
    const seen = new Set<string>();
    for (const [name, imported] of definition._childComponents) {
      if (seen.has(name)) throw new Error(`Two components are installed under the name "${name}"${parent === "" ? "" : ` in ${parent}`}.`);
      seen.add(name);
      const componentPath = parent === "" ? name : `${parent}/${name}`;
      components.push({
        path: componentPath,
        name,
        dir: imported.componentDefinitionPath,
        specifier: specifiers.get(imported.componentDefinitionPath) ?? imported.componentDefinitionPath,
        parent,
      });
      visit(imported.definition, componentPath);
    }
  };
  visit(app, "");
  return components;
}

interface DefinitionAtRuntime {
  _name?: string;
  _childComponents: Array<[string, { componentDefinitionPath: string; definition: DefinitionAtRuntime }]>;
}

let configEvaluations = 0;

function componentDefinitionPlugin(specifiers: Map<string, string>): Plugin {
  return {
    name: "maestro-component-definitions",
    setup(b) {
      b.onResolve({ filter: /convex\.config/ }, (args) => {
        if (args.kind === "entry-point") return undefined;
        // The stand-in imports the real definition by absolute path.
        if (args.namespace === COMPONENT_NAMESPACE) return { path: args.path };
        const resolved = resolveConfig(args.path, args.resolveDir);
        if (resolved === null) return { errors: [{ text: `Cannot find the component definition "${args.path}".` }] };
        const dir = path.dirname(resolved);
        if (!specifiers.has(dir)) specifiers.set(dir, args.path);
        return { path: resolved, namespace: COMPONENT_NAMESPACE };
      });
      b.onLoad({ filter: /.*/, namespace: COMPONENT_NAMESPACE }, (args) => ({
        contents: [
          `import definition from ${JSON.stringify(args.path)};`,
          "export default {",
          `  componentDefinitionPath: ${JSON.stringify(path.dirname(args.path))},`,
          "  defaultName: definition._name,",
          "  definition,",
          "};",
        ].join("\n"),
        resolveDir: path.dirname(args.path),
        loader: "js",
      }));
    },
  };
}

function resolveConfig(specifier: string, resolveDir: string): string | null {
  const require = createRequire(path.join(resolveDir, "noop.js"));
  const candidates = [specifier];
  if (specifier.endsWith(".js")) candidates.push(`${specifier.slice(0, -3)}.ts`);
  else if (!specifier.endsWith(".ts")) candidates.push(`${specifier}.js`, `${specifier}.ts`);
  for (const candidate of candidates) {
    try {
      return require.resolve(candidate);
    } catch {
      // try the next spelling
    }
  }
  return null;
}
