/**
 * A run's event stream in the browser, against `npm start`'s stack. A run of
 * 10,000 events (seeded in batches through the bulk path, convex/seedScale.ts:
 * the stream's own validator and `appendRunEvent`) is paged on its run page
 * until its last event is on screen, while only the rows in view are in the
 * DOM; the task drawer's runs panel shows the run's tool calls from the same
 * stream (its newest 20, read by event type), live as events arrive, and
 * leads to the run's page for the rest.
 * Both screens pass axe-core in light and dark at 1440, 1280 and 390 px.
 * Screenshots: tests/output/run-events-<drawer|run>-<light|dark>-<width>.png.
 */
import { anyApi } from "convex/server";
import type { ConvexHttpClient } from "convex/browser";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { RunEventPayload } from "../../convex/lib/runEvents";
import { auditLooks, drawer, showLook, startJourney, until, type Journey } from "./journey";

const EVENTS = 10_000;
/** Events per bulk call (convex/seedScale.ts MAX_SEED_BATCH). */
const BATCH = 500;
/** What the seeded run's last event says. */
const LAST = `The last event of ${EVENTS.toLocaleString("en")}`;
/** Bound on paging a whole run through on a busy machine. */
const PAGING_MS = 120_000;

let journey: Journey;
let page: Page;
let admin: ConvexHttpClient;
let asAda: ConvexHttpClient;
let taskId: Id<"tasks">;
let runId: Id<"runs">;
let slug: string;

const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;
const timeline = (p: Page) => p.getByTestId("run-timeline-scroll");
const toolLines = (p: Page) => drawer(p).getByRole("list", { name: "Tool calls" }).first().getByRole("listitem");

/** `count` payloads, numbered from `first`: tool calls, each followed by its result. */
function toolPayloads(first: number, count: number): RunEventPayload[] {
  const payloads: RunEventPayload[] = [];
  for (let n = first; payloads.length < count; n++) {
    payloads.push({ type: "tool_call", index: n, name: "post_message", args: JSON.stringify({ content: `Update ${n}` }) });
    if (payloads.length < count) payloads.push({ type: "tool_result", index: n, name: "post_message", outcome: "ok", observation: `posted update ${n}` });
  }
  return payloads;
}

async function append(run: Id<"runs">, payloads: RunEventPayload[]): Promise<number> {
  return (await admin.mutation(anyApi.seedScale.runEvents, { runId: run, payloads })) as number;
}

beforeAll(async () => {
  journey = await startJourney({ password: "run-events-test-password" });
  page = await journey.newPage({ who: "Ada" });
  await journey.signIn(page, "Ada");
  admin = journey.adminClient();
  asAda = await journey.clientFor("Ada");
  const [department] = await asAda.query(api.departments.listMine, {});
  slug = department.slug;
  taskId = await asAda.mutation(api.tasks.create, { departmentId: department._id, title: "Long run", description: "A run with ten thousand events.", assigneeSessionKeys: [] });
  const writer = (await asAda.query(api.agents.list, { departmentId: department._id })).find((agent) => agent.name === "Writer")!;
  // A finished run of five events, as the brain writes them; then the rest of its 10,000, in batches.
  await admin.mutation(anyApi.seedScale.runs, { pairs: [{ agentId: writer._id, taskId }] });
  runId = (await asAda.query(api.runs.listForTask, { taskId }))[0]._id;
  let seq = 5;
  while (seq < EVENTS - 1) {
    const count = Math.min(BATCH, EVENTS - 1 - seq);
    seq = await append(runId, toolPayloads(seq, count));
  }
  seq = await append(runId, [{ type: "user_message_submitted", author: "Ada", content: LAST }]);
  expect(seq).toBe(EVENTS);
}, 180_000);

afterAll(async () => {
  await journey?.close();
});

describe("a run's events, paged and live", () => {
  test(`a run of ${EVENTS.toLocaleString("en")} events pages through to its last event; only the rows in view are rendered`, async () => {
    await page.goto(appAt(`/d/${slug}/runs/${runId}`));
    const loaded = page.getByTestId("run-events-loaded");
    await until(() => loaded.textContent(), (text) => text === "500 events loaded so far", "the first page");
    await expect(page.getByRole("button", { name: "Load more events" }).count()).resolves.toBe(1);

    // Scroll to the end of what is loaded until the run's last event is on screen: each time the end
    // comes into view the next page loads. The longest main-thread task meanwhile is the figure to watch.
    await page.evaluate(() => {
      const w = window as unknown as { longestTaskMs: number };
      w.longestTaskMs = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.longestTaskMs = Math.max(w.longestTaskMs, entry.duration);
      }).observe({ type: "longtask", buffered: false });
    });
    const last = timeline(page).locator(`li[data-seq="${EVENTS}"]`);
    let scrolls = 0;
    const started = Date.now();
    while (!(await last.isVisible())) {
      if (Date.now() - started > PAGING_MS) throw new Error(`The last event was not reached in ${PAGING_MS} ms (${await loaded.textContent()})`);
      await timeline(page).evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
      scrolls += 1;
      await page.waitForTimeout(100);
    }
    await expect(last.textContent()).resolves.toContain(LAST);
    await until(() => loaded.textContent(), (text) => text === `${EVENTS.toLocaleString("en")} events`, "every event loaded");
    await expect(page.getByRole("button", { name: "Load more events" }).count()).resolves.toBe(0);

    // Virtualised: thousands of timeline rows, a few dozen in the DOM.
    const rendered = await timeline(page).locator("li").count();
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(100);
    const setSize = Number(await last.getAttribute("aria-setsize"));
    expect(setSize).toBeGreaterThan(EVENTS / 2 - 10);

    // Still responsive: a frame comes at once, the first event is reachable again, and links work.
    const frameMs = await page.evaluate(() => new Promise<number>((resolve) => {
      const at = performance.now();
      requestAnimationFrame(() => resolve(performance.now() - at));
    }));
    const longest = await page.evaluate(() => (window as unknown as { longestTaskMs: number }).longestTaskMs);
    console.log(`run page: ${EVENTS} events in ${scrolls} scrolls, ${rendered} rows in the DOM, longest task ${Math.round(longest)} ms, next frame ${Math.round(frameMs)} ms`);
    await timeline(page).evaluate((element) => element.scrollTo({ top: 0 }));
    await timeline(page).locator('li[data-seq="1"]').waitFor();
    await page.getByRole("link", { name: "← All runs" }).click();
    await page.getByRole("heading", { name: "Agent runs" }).waitFor();
    expect(journey.pageErrors).toEqual([]);
  }, PAGING_MS + 60_000);

  test("the drawer's runs panel shows a long run's tool calls from its stream and leads to the run's page", async () => {
    await page.goto(appAt(`/d/${slug}/tasks/${taskId}`));
    const run = drawer(page).getByTestId("run").first();
    await run.waitFor();
    // The run's newest calls, read by event type (not its 10,000 events), and a way to the rest.
    await until(() => toolLines(page).count(), (count) => count === 20, "the run's newest 20 tool calls");
    await expect(toolLines(page).first().textContent()).resolves.toMatch(/Posted in the thread: “Update \d+”/);
    await run.getByText("The latest 20 tool calls of this run.").waitFor();
    await run.getByRole("link", { name: "See them all" }).click();
    await page.waitForURL(`**/runs/${runId}`);
    await page.getByTestId("run-events-loaded").waitFor();
    expect(journey.pageErrors).toEqual([]);
  });

  test("a run's tool calls appear in the drawer as their events arrive, then their results; new events appear on its page", async () => {
    const [department] = await asAda.query(api.departments.listMine, {});
    const liveTask = await asAda.mutation(api.tasks.create, { departmentId: department._id, title: "Live run", description: "Watch it work.", assigneeSessionKeys: [] });
    const writer = (await asAda.query(api.agents.list, { departmentId: department._id })).find((agent) => agent.name === "Writer")!;
    await admin.mutation(anyApi.seedScale.runs, { pairs: [{ agentId: writer._id, taskId: liveTask }] });
    const liveRun = (await asAda.query(api.runs.listForTask, { taskId: liveTask }))[0]._id;
    await page.goto(appAt(`/d/${slug}/tasks/${liveTask}`));
    await drawer(page).getByTestId("run").first().waitFor();
    await expect(drawer(page).getByRole("list", { name: "Tool calls" }).count()).resolves.toBe(0);

    await append(liveRun, [{ type: "tool_call", index: 0, name: "post_message", args: JSON.stringify({ content: "Draft ready" }) }]);
    // The seeded run has ended, so a call with no result yet reads as unfinished (a running run's reads "Calling …").
    await until(() => toolLines(page).count(), (count) => count === 1, "the call, as its event arrives");
    await expect(toolLines(page).first().textContent()).resolves.toContain("post_message: did not finish");

    await append(liveRun, [{ type: "tool_result", index: 0, name: "post_message", outcome: "ok", observation: "posted" }]);
    await until(() => toolLines(page).first().getAttribute("data-outcome"), (outcome) => outcome === "ok", "the call done");
    await expect(toolLines(page).first().textContent()).resolves.toContain("Posted in the thread: “Draft ready”");

    // The run's page follows the stream too: its history read once, then the events after it, live.
    await page.goto(appAt(`/d/${slug}/runs/${liveRun}`));
    await timeline(page).locator('li[data-kind="tool"]').first().waitFor();
    const seq = await append(liveRun, [{ type: "user_message_submitted", author: "Ada", content: "Arrived while watching" }]);
    await expect(timeline(page).locator(`li[data-seq="${seq}"]`).textContent()).resolves.toContain("Arrived while watching");
    expect(journey.pageErrors).toEqual([]);
  });

  test("the runs panel and the run page pass axe-core in light and dark at 1440, 1280 and 390 px", async () => {
    const shot = await journey.newPage({ who: "Ada, screenshots" });
    await journey.signIn(shot, "Ada");
    const drawerFailures = await auditLooks("run-events-drawer", async (look) => {
      await showLook(shot, look);
      await shot.goto(appAt(`/d/${slug}/tasks/${taskId}`));
      await drawer(shot).getByRole("list", { name: "Tool calls" }).first().waitFor();
      await drawer(shot).getByRole("region", { name: "Agent activity" }).scrollIntoViewIfNeeded();
      return shot;
    });
    const runFailures = await auditLooks("run-events-run", async (look) => {
      await showLook(shot, look);
      await shot.goto(appAt(`/d/${slug}/runs/${runId}`));
      await timeline(shot).locator("li").first().waitFor();
      return shot;
    });
    expect({ ...drawerFailures, ...runFailures }).toEqual({});
    expect(journey.pageErrors).toEqual([]);
  }, 180_000);
});
