/**
 * Every address of the app in a real browser against `npm start`'s stack:
 * each route answers with the app (never a 404), opens in a fresh tab after
 * sign-in and survives a reload; Back returns where you came from (a subtask
 * to its parent, keeping the board's filters; a deep link opened fresh to
 * the app, not out of it); the runs' rows are links; an agent's address
 * takes its name in any case.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { drawer, emailOf, fillSignIn, passwordOf, startJourney, until, type Journey } from "./journey";

/** Bound on waiting for an agent's run (the demo model answers in milliseconds; the machine may be busy). */
const RUN_MS = 30_000;

let journey: Journey;
let parentId: Id<"tasks">;
let subtaskId: Id<"tasks">;
let runId: Id<"runs">;
let channelId: Id<"channels">;

const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;
const pathOf = (page: Page) => new URL(page.url()).pathname;
const addressOf = (page: Page) => {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
};

/** Opens `address` in a fresh browser (its own storage: signed out) and signs in there as Ada. */
async function freshAt(address: string): Promise<Page> {
  const page = await journey.newPage({ who: "Ada (fresh)" });
  await page.goto(appAt(address));
  await fillSignIn(page, emailOf("Ada"), passwordOf("Ada"));
  return page;
}

beforeAll(async () => {
  journey = await startJourney({ password: "addresses-test-password" });
  const asAda = await journey.clientFor("Ada");
  const [department] = await asAda.query(api.departments.listMine, {});
  parentId = await asAda.mutation(api.tasks.create, { departmentId: department._id, title: "Launch week", description: "Everything for the launch.", tags: ["launch"], assigneeSessionKeys: [] });
  await asAda.mutation(api.messages.create, { taskId: parentId, content: "@Jarvis delegate the launch press kit to Writer" });
  const { subtasks } = await until(() => asAda.query(api.tasks.listSubtasks, { taskId: parentId }), (list) => list.subtasks.length > 0, "the delegated subtask", RUN_MS);
  subtaskId = subtasks[0]._id;
  runId = (await until(() => asAda.query(api.runs.listForTask, { taskId: parentId }), (runs) => runs.length > 0, "Jarvis's run", RUN_MS))[0]._id;
  channelId = await asAda.mutation(api.channels.create, { departmentId: department._id, name: "launch-room", visibility: "project" });
  await asAda.mutation(api.channelMessages.post, { channelId, body: "Kick-off at ten." });
});

afterAll(async () => {
  await journey?.close();
});

describe("every route survives a reload and a fresh tab", () => {
  test("each address answers with the app, opens fresh after sign-in, and shows the same page after a reload", async () => {
    const routes: { address: string; canonical?: string; ready: (page: Page) => Promise<unknown> }[] = [
      { address: "/d/product", ready: (p) => p.getByTestId("task-card").first().waitFor() },
      { address: `/d/product/tasks/${parentId}`, ready: (p) => drawer(p).getByRole("heading", { name: "Launch week" }).waitFor() },
      { address: `/d/product/tasks/${subtaskId}`, ready: (p) => drawer(p).getByRole("link", { name: "Launch week" }).waitFor() },
      { address: "/d/product/agents/writer", ready: (p) => p.getByTestId("agent-page").getByRole("heading", { name: /Writer/ }).waitFor() },
      // The name as people write it finds the agent, and the address becomes its own.
      { address: "/d/product/agents/Writer", canonical: "/d/product/agents/writer", ready: (p) => p.getByTestId("agent-page").getByRole("heading", { name: /Writer/ }).waitFor() },
      { address: "/d/product/agents/Dev%20Bot", canonical: "/d/product/agents/dev-bot", ready: (p) => p.getByTestId("agent-page").getByRole("heading", { name: /Dev Bot/ }).waitFor() },
      { address: "/d/product/channels", ready: (p) => p.getByTestId("channel-row").first().waitFor() },
      { address: `/d/product/channels/${channelId}`, ready: (p) => p.getByTestId("channel-message").filter({ hasText: "Kick-off at ten." }).waitFor() },
      { address: "/d/product/runs", ready: (p) => p.getByTestId("run-row").first().waitFor() },
      { address: `/d/product/runs/${runId}`, ready: (p) => p.getByRole("region", { name: "Run" }).getByRole("heading", { name: "Jarvis on “Launch week”" }).waitFor() },
      { address: "/d/product/figures", ready: (p) => p.getByTestId("chart-per-day").waitFor() },
    ];
    for (const route of routes) {
      const response = await fetch(appAt(route.address));
      expect(response.status, `${route.address} answers with the app`).toBe(200);
      expect(await response.text(), route.address).toContain('<div id="root">');

      const page = await freshAt(route.address);
      await route.ready(page);
      await until(async () => pathOf(page), (p) => p === (route.canonical ?? route.address), `${route.address} to stay its address`);
      await page.reload();
      await route.ready(page);
      expect(pathOf(page), `${route.address} after a reload`).toBe(route.canonical ?? route.address);
      await page.context().close();
    }
    expect(journey.pageErrors).toEqual([]);
  });
});

describe("Back returns where you came from", () => {
  test("board (filtered) → parent → subtask: Back lands on the parent, the filters kept all the way; closing returns to the filtered board", async () => {
    const page = await journey.newPage({ who: "Ada" });
    await journey.signIn(page, "Ada");
    await page.goto(appAt("/d/product?tag=launch"));
    const card = page.getByTestId("task-card").filter({ hasText: "Launch week" });
    await card.waitFor();
    await card.getByRole("button", { name: "Launch week", exact: true }).click();
    await drawer(page).getByRole("heading", { name: "Launch week" }).waitFor();
    expect(addressOf(page)).toBe(`/d/product/tasks/${parentId}?tag=launch`);

    await drawer(page).getByRole("link", { name: "Launch press kit" }).click();
    await drawer(page).getByRole("heading", { name: "Launch press kit" }).waitFor();
    expect(addressOf(page)).toBe(`/d/product/tasks/${subtaskId}?tag=launch`);

    await page.goBack();
    await drawer(page).getByRole("heading", { name: "Launch week" }).waitFor();
    expect(addressOf(page)).toBe(`/d/product/tasks/${parentId}?tag=launch`);

    await page.goForward();
    await drawer(page).getByRole("heading", { name: "Launch press kit" }).waitFor();
    await drawer(page).getByRole("button", { name: "Close task" }).first().click();
    await drawer(page).waitFor({ state: "detached" });
    expect(addressOf(page)).toBe("/d/product?tag=launch");
    await expect(page.getByLabel("Tag").first().inputValue()).resolves.toBe("launch");
    await page.context().close();
  });

  test("a deep link opened fresh, then Back, stays in the app: a task's, a run's and a channel's", async () => {
    for (const [address, below] of [
      [`/d/product/tasks/${subtaskId}`, "/d/product"],
      [`/d/product/runs/${runId}`, "/d/product/runs"],
      [`/d/product/channels/${channelId}`, "/d/product"],
    ]) {
      const page = await freshAt(address);
      await page.getByTestId("side-panel").waitFor();
      await until(async () => pathOf(page), (p) => p === address, `${address} after sign-in`);
      await page.goBack();
      await until(async () => pathOf(page), (p) => p === below, `Back from ${address} to land on ${below}`);
      await page.getByTestId("side-panel").waitFor();
      await page.context().close();
    }
  });

  test("the runs' rows are links to each run: they open in place, and Back returns to the list", async () => {
    const page = await journey.newPage({ who: "Ada" });
    await journey.signIn(page, "Ada");
    await page.goto(appAt("/d/product/runs"));
    // A run of Jarvis's on the parent (Writer's on the subtask may be listed first; Jarvis may have run there again
    // once a subtask reached Review, so the newest of his runs there is the row's).
    const link = page.getByTestId("run-row").getByRole("link", { name: "Launch week", exact: true }).first();
    const href = await link.getAttribute("href");
    const asAda = await journey.clientFor("Ada");
    const runIds = (await asAda.query(api.runs.listForTask, { taskId: parentId })).map((r) => r._id);
    expect(runIds).toContain(runId);
    expect(runIds.map((id) => `/d/product/runs/${id}`)).toContain(href);
    await link.click();
    await page.getByRole("region", { name: "Run", exact: true }).waitFor();
    expect(pathOf(page)).toBe(href);
    await page.goBack();
    await page.getByTestId("run-row").first().waitFor();
    expect(pathOf(page)).toBe("/d/product/runs");
    await page.context().close();
    expect(journey.pageErrors).toEqual([]);
  });
});
