/**
 * `npm run bench:start` — how soon `npm start`'s first page is usable, cold:
 * a new `npm start` process (fresh data folder, free ports, the demo squad)
 * and a new Chromium each round, timing start → the address printed
 * (MAESTRO_READY, once the app is built and served; MAESTRO_DEV=1 serves the
 * sources warmed instead, tools/warmApp.ts) → the first page
 * interactive (the sign-in form visible and enabled, as a new person sees
 * it). Five rounds; the median of "address → interactive" is held to the
 * target of 1.5 s. Set BENCH_START_ROUNDS to change the number of rounds.
 */
import os from "node:os";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, chromiumPath } from "../tests/browser/chromium";
import { startStack } from "../tests/browser/stack";
import { log } from "./harness";
import { summarize } from "./stats";

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 5);
/** The target: the first page interactive within 1.5 s of the address being printed. */
const TARGET_MS = 1_500;

const rows: Array<{ ready: number; interactive: number }> = [];
for (let round = 1; round <= ROUNDS; round++) {
  const started = performance.now();
  const stack = await startStack({ password: "bench-start-password" });
  const ready = performance.now() - started;
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const opened = performance.now();
    await page.goto(stack.appUrl);
    // Interactive: the first form a new person uses is on screen and takes input.
    const form = page.getByTestId("setup-form").or(page.getByTestId("signin-form"));
    await form.getByRole("textbox").first().waitFor({ state: "visible", timeout: 60_000 });
    await form.getByRole("textbox").first().fill("x");
    const interactive = performance.now() - opened;
    rows.push({ ready, interactive });
    log(`round ${round}/${ROUNDS}: address printed after ${Math.round(ready)} ms, first page interactive ${Math.round(interactive)} ms later`);
  } finally {
    await browser.close();
    await stack.stop();
  }
}

const ready = summarize(rows.map((r) => r.ready));
const interactive = summarize(rows.map((r) => r.interactive));
const load = os.loadavg()[0].toFixed(1);
console.log(`\nbench:start — ${ROUNDS} cold starts (new process, data folder and browser each), ${os.cpus().length} cores, load average ${load}`);
console.log(`  start → address printed        median ${Math.round(ready.p50)} ms (max ${Math.round(ready.max)})`);
console.log(
  `  address → first page interactive median ${Math.round(interactive.p50)} ms (max ${Math.round(interactive.max)}); target ${TARGET_MS} ms: ${interactive.p50 <= TARGET_MS ? "met" : "NOT met"}`,
);
