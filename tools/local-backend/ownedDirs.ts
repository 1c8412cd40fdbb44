/**
 * Folders a process makes for itself (the functions' builds, the app's
 * build, scratch space): each is named after the process that owns it,
 * removed when that process exits (a clean stop, `process.exit`, a signal
 * handler that exits: anything that still runs JavaScript), and removed by
 * the next start when its owner is gone without cleaning up (`kill -9`, a
 * crash, a power cut). A folder whose owner still runs is never touched,
 * whichever checkout or backend it belongs to.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";

/** This process's folders, removed at its exit. */
const owned = new Set<string>();
let exitHookInstalled = false;

function removeOwnedAtExit() {
  for (const dir of owned) rmSync(dir, { recursive: true, force: true });
  owned.clear();
}

/**
 * Makes `<parent>/<prefix><pid>-<random>` for this process and returns its
 * path; it is removed at exit unless `releaseOwnedDir` removed it first.
 */
export function makeOwnedDir(parent: string, prefix: string): string {
  mkdirSync(parent, { recursive: true });
  const dir = path.join(parent, `${prefix}${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(dir, { mode: 0o700 });
  owned.add(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' listeners must be synchronous: rmSync is.
    process.on("exit", removeOwnedAtExit);
  }
  return dir;
}

/** Removes one of this process's folders now. */
export function releaseOwnedDir(dir: string) {
  rmSync(dir, { recursive: true, force: true });
  owned.delete(dir);
}

/**
 * Removes every `<parent>/<prefix><pid>-…` whose process no longer runs;
 * returns their names. Folders of running processes (this one's included)
 * and names of any other shape stay.
 */
export function pruneOrphanedDirs(parent: string, prefix: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return [];
  }
  const pruned: string[] = [];
  for (const name of entries) {
    if (!name.startsWith(prefix)) continue;
    const match = /^([0-9]+)-/.exec(name.slice(prefix.length));
    if (match === null) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || processRuns(pid)) continue;
    rmSync(path.join(parent, name), { recursive: true, force: true });
    pruned.push(name);
  }
  return pruned;
}

/** Whether a process with this id runs (one of another user's counts: signal 0 is refused, not unknown). */
export function processRuns(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
