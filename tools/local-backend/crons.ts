/** Runs the jobs declared in `convex/crons.ts` while the backend runs. */
import type { JSONValue } from "convex/values";
import { nextRun, type CronSchedule } from "./cron.js";
import type { Engine } from "./engine.js";

interface CronJob {
  name: string;
  args: JSONValue[];
  schedule: CronSchedule;
}

export class CronRunner {
  private timers: NodeJS.Timeout[] = [];
  /** Bumped by every reset, so a run that ends after a reload does not re-arm a stale job. */
  private generation = 0;

  constructor(
    private readonly engine: Engine,
    private readonly log: (line: string) => void,
  ) {}

  /** (Re)reads the cron jobs of the currently loaded functions. */
  reset() {
    this.stop();
    const crons = (this.engine.modules.get("crons")?.default as { crons?: Record<string, CronJob> } | undefined)?.crons;
    for (const [identifier, job] of Object.entries(crons ?? {})) this.arm(identifier, job, Date.now());
  }

  stop() {
    this.generation += 1;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
  }

  private arm(identifier: string, job: CronJob, afterMs: number) {
    let at: number;
    try {
      at = nextRun(job.schedule, afterMs);
    } catch (error) {
      this.log(`Cron "${identifier}" is not scheduled: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const generation = this.generation;
    const timer = setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== timer);
      void this.engine.runScheduled(job.name, job.args[0] ?? {}).then((outcome) => {
        if (!outcome.ok) this.log(`Cron "${identifier}" (${job.name}) failed: ${outcome.errorMessage}`);
        // The next run is counted from when this one ended, so runs never overlap.
        if (generation === this.generation) this.arm(identifier, job, Math.max(Date.now(), at));
      });
    }, Math.max(0, at - Date.now()));
    this.timers.push(timer);
  }
}
