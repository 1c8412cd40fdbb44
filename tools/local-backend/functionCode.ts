/**
 * The deployment's function code: builds `convex/` and the functions of the
 * components `convex.config.ts` installs, hands each component's modules to
 * convex-test, and hot-reloads `convex/` after an edit, refusing a schema the
 * existing documents break.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { tableOf, type ComponentState, type Components } from "./componentState.js";
import { FunctionNotFoundError, ROOT } from "./functions.js";
import { buildConvexModules, discoverComponents, type InstalledComponent, type ModuleMap } from "./modules.js";
import { makeOwnedDir, pruneOrphanedDirs, releaseOwnedDir } from "./ownedDirs.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- convex-test internals and schemas are untyped */

/** convex-test finds a functions root through a `_generated` path; modules then come from our own loaders. */
export const MODULES_ROOT_MARKER = { "/convex/_generated/api.js": async () => ({}) };

/** Where every backend of a checkout builds its functions: one `build-<pid>-<random>` folder per running backend. */
export function buildsFolder(projectRoot: string): string {
  return path.join(projectRoot, "node_modules", ".cache", "maestro-local-backend");
}

/** Prefix of a backend's build folder in `buildsFolder`. */
export const BUILD_PREFIX = "build-";

export class FunctionCode {
  /** The app's functions, as loaded now. */
  modules: ModuleMap = new Map();
  /** The components `convex.config.ts` installed at startup. */
  installed: InstalledComponent[] = [];
  private generation = 0;
  /** The build of `convex/` whose modules run now (`buildRoot/<generation>`). */
  private liveGeneration = 0;
  /** This backend's build folder: the app's build of each generation, the components' builds, convex.config's. */
  readonly buildRoot: string;

  constructor(
    projectRoot: string,
    private readonly convexDir: string,
  ) {
    const folder = buildsFolder(projectRoot);
    // Builds left by backends that were killed (or crashed) go first: about 5 MB each, never read again.
    pruneOrphanedDirs(folder, BUILD_PREFIX);
    this.buildRoot = makeOwnedDir(folder, BUILD_PREFIX);
  }

  /** Builds the app's functions, finds the installed components and builds theirs (at startup). */
  async buildAll(): Promise<{ modules: ModuleMap; componentModules: Map<string, ModuleMap> }> {
    const modules = await this.build();
    this.goLive();
    this.installed = await this.discover();
    const componentModules = await this.buildComponents(this.installed);
    return { modules, componentModules };
  }

  private async build(): Promise<ModuleMap> {
    this.generation += 1;
    return await buildConvexModules(this.convexDir, this.buildRoot, this.generation);
  }

  /**
   * Makes the last build the one that runs, and removes the build it
   * supersedes: a backend that hot-reloads all day kept every build (about
   * 5 MB each) until it stopped. Every module of a build is imported, chunks
   * included, when it is built (modules.ts), so its files are never read
   * again.
   */
  private goLive() {
    const superseded = this.liveGeneration;
    this.liveGeneration = this.generation;
    if (superseded !== 0) this.removeBuild(superseded);
  }

  /** Removes one generation's build of `convex/`. */
  private removeBuild(generation: number) {
    rmSync(path.join(this.buildRoot, String(generation)), { recursive: true, force: true });
  }

  private async discover(): Promise<InstalledComponent[]> {
    const outdir = path.join(this.buildRoot, "config");
    try {
      return await discoverComponents(this.convexDir, outdir);
    } finally {
      // Each evaluation writes a file of its own (modules are cached by URL), read once: none is kept.
      rmSync(outdir, { recursive: true, force: true });
    }
  }

  /** Builds each component's functions from its own folder (an installed package's compiled `dist/component`). */
  private async buildComponents(installed: InstalledComponent[]): Promise<Map<string, ModuleMap>> {
    const built = new Map<string, ModuleMap>();
    for (const component of installed) {
      // Built once, at start, beside the app's generations: a reload never replaces them.
      const modules = await buildConvexModules(component.dir, path.join(this.buildRoot, "components"), 1, {
        subdir: component.path,
        bundleDependencies: true,
      });
      built.set(component.path, modules);
    }
    return built;
  }

  /** Makes `modules` the functions convex-test runs for the component `state` (`global` is convex-test's). */
  install(global: any, state: ComponentState, modules: ModuleMap) {
    state.modules = modules;
    if (state.path === ROOT) this.modules = modules;
    global.components[state.path].modules = async (modulePath: string) => {
      const module = state.modules.get(modulePath);
      if (module === undefined) throw new FunctionNotFoundError(`Could not find module for: "${modulePath}"`);
      return module;
    };
  }

  /**
   * Rebuilds `convex/` after an edit. A schema that existing documents do not
   * satisfy is refused, as `npx convex dev` refuses to push it; the previous
   * functions keep running. Returns an error message, or null on success.
   */
  async reload(global: any, components: Components): Promise<string | null> {
    const refused = (message: string) => {
      // A refused build never runs: its folder goes at once, and the running one stays.
      if (this.generation !== this.liveGeneration) this.removeBuild(this.generation);
      return message;
    };
    let modules: ModuleMap;
    try {
      modules = await this.build();
      const installed = await this.discover();
      const describe = (list: InstalledComponent[]) => list.map((c) => `${c.path}@${c.dir}`).join(", ");
      if (describe(installed) !== describe(this.installed)) {
        return refused("convex.config.ts now installs other components; restart the backend to mount them.");
      }
    } catch (error) {
      return refused(`Build failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const root = components.root;
    const previousSchema = root.db._schema;
    const nextSchema = schemaOf(modules);
    root.db._schema = nextSchema === null ? null : exportSchema(nextSchema);
    try {
      for (const doc of Object.values(root.db._documents) as any[]) {
        const table = tableOf(doc._id);
        if (table.startsWith("_")) continue;
        const { _id, _creationTime, ...fields } = doc;
        void _id;
        void _creationTime;
        root.db._validate(table, fields);
      }
    } catch (error) {
      root.db._schema = previousSchema;
      return refused(`Schema validation failed against existing documents: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.install(global, root, modules);
    this.goLive();
    root.rebuildIndexes();
    return null;
  }

  /** Removes this backend's builds (also removed at the process's exit, and by the next start after a kill). */
  dispose() {
    releaseOwnedDir(this.buildRoot);
  }
}

/** The schema a module map defines (`schema.ts`'s default export), or null. */
export function schemaOf(modules: ModuleMap): any {
  return (modules.get("schema")?.default as any) ?? null;
}

function exportSchema(schema: any) {
  return {
    schemaValidation: schema.schemaValidation,
    tables: new Map(Object.entries(schema.tables).map(([name, table]: [string, any]) => [name, table.export()])),
  };
}
