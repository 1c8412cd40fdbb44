/**
 * The board at the sizes people use it — 1440×900, 1280×800 and a 390×844
 * phone — with a column long enough to be virtualised: every column header is
 * in view (or, on the phone, one tap or swipe away); `j`/`k` walk the cards
 * and Enter opens one; a card in the long column still moves by keyboard; the
 * filter bar narrows the board on the server and survives a reload.
 * Screenshots land in tests/output/.
 */
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { closeDrawer, cutTexts, drawer, screenshotPath, startJourney, until, type Journey } from "./journey";

const PASSWORD = "board-layout-password";
const STATUSES = ["inbox", "assigned", "in_progress", "review", "done", "blocked"] as const;
/** Extra Inbox cards: well past the column's virtualisation threshold. */
const BULK = 120;

let journey: Journey | undefined;
let page: Page;
let departmentId: Id<"departments">;
let writerKey: string;

async function inViewport(locator: Locator, viewport: { width: number; height: number }): Promise<boolean> {
  const box = await locator.boundingBox();
  return box !== null && box.x >= 0 && box.y >= 0 && box.x + box.width <= viewport.width + 0.5 && box.y + box.height <= viewport.height + 0.5;
}

const header = (status: string) => page.getByTestId(`column-${status}`).locator("h2");
const count = (status: string) => page.getByTestId(`column-${status}`).getByTestId("column-count");

beforeAll(async () => {
  journey = await startJourney({ password: PASSWORD });
  const ada = await journey.clientFor("Ada");
  [{ _id: departmentId }] = await ada.query(api.departments.listMine, {});
  writerKey = (await ada.query(api.agents.list, { departmentId })).find((agent) => agent.name === "Writer")!.sessionKey;
  for (let i = 0; i < BULK; i++) {
    await ada.mutation(api.tasks.create, {
      departmentId,
      title: `Bulk chore ${String(i).padStart(3, "0")}`,
      priority: i % 2 === 0 ? "low" : "medium",
      tags: i % 10 === 0 ? ["copy"] : ["bulk"],
    });
  }
  // A few for Writer (who also holds the seeded "Pricing page copy"): the assignee and tag filters pick them out.
  for (let i = 0; i < 3; i++) {
    await ada.mutation(api.tasks.create, { departmentId, title: `Writer draft ${i}`, tags: ["copy"], assigneeSessionKeys: [writerKey], priority: "high" });
  }
  page = await journey.newPage({ who: "Ada", viewport: { width: 1440, height: 900 } });
  await journey.signIn(page, "Ada");
});

afterAll(async () => {
  await journey?.close();
});

describe("the board's columns fit the screen", () => {
  test("1440×900: all six columns side by side, none folded, no sideways scroll", async () => {
    const viewport = { width: 1440, height: 900 };
    await until(() => count("inbox").textContent(), (text) => text === String(BULK + 1), "the bulk cards in Inbox");
    for (const status of STATUSES) {
      await expect(inViewport(header(status), viewport), `${status} header in view`).resolves.toBe(true);
      await expect(page.getByTestId(`column-${status}`).getAttribute("data-collapsed")).resolves.toBeNull();
    }
    expect(await cutTexts(page.locator("[data-testid^=column-] h2"))).toEqual([]);
    const board = page.getByTestId("board");
    await expect(board.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).resolves.toBe(true);
    // Done's card is readable: its title is not cut off sideways.
    const doneCard = page.getByTestId("column-done").getByTestId("task-card").first();
    await expect(inViewport(doneCard, viewport)).resolves.toBe(true);
    // The long column renders only what is in view, not all its cards.
    const rendered = await page.getByTestId("column-inbox").getByTestId("task-card").count();
    expect(rendered).toBeGreaterThan(3);
    expect(rendered).toBeLessThan(BULK / 2);
    await page.screenshot({ path: screenshotPath("board-1440.png") });
    expect(journey!.pageErrors).toEqual([]);
  });

  test("1280×800: every header in view; Done and Blocked may fold to a strip and unfold on a click", async () => {
    const viewport = { width: 1280, height: 800 };
    await page.setViewportSize(viewport);
    for (const status of STATUSES) {
      await until(() => inViewport(header(status), viewport), (inView) => inView, `${status} header in view at 1280`);
    }
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(viewport.width);
    // In view and whole: no column's name is cut ("In progress" was, at six 144 px columns beside the 288 px panel).
    await until(() => cutTexts(page.locator("[data-testid^=column-] h2")), (cut) => cut.length === 0, "every header whole at 1280");
    await page.screenshot({ path: screenshotPath("board-1280.png") });

    // Folding Done by hand keeps its name and count in view; unfolding brings its cards back.
    const done = page.getByTestId("column-done");
    if ((await done.getAttribute("data-collapsed")) === null) await done.getByRole("button", { name: "Fold the Done column" }).click();
    await until(() => done.getAttribute("data-collapsed"), (value) => value !== null, "Done folded");
    await expect(inViewport(header("done"), viewport)).resolves.toBe(true);
    await expect(count("done").textContent()).resolves.toBe("1");
    await page.screenshot({ path: screenshotPath("board-1280-folded.png") });
    await done.getByRole("button", { name: "Show the Done column" }).click();
    await done.getByTestId("task-card").first().waitFor();
    expect(journey!.pageErrors).toEqual([]);
  });

  test("390×844: one column at a time, every column one tap or swipe away", async () => {
    const viewport = { width: 390, height: 844 };
    await page.setViewportSize(viewport);
    const board = page.getByTestId("board");
    await until(() => board.getAttribute("data-column-mode"), (mode) => mode === "single", "single-column mode");
    await expect(inViewport(header("inbox"), viewport)).resolves.toBe(true);
    await expect(inViewport(header("assigned"), viewport)).resolves.toBe(false);
    await page.screenshot({ path: screenshotPath("board-390.png") });

    // A swipe scrolls the board one column on (snapping).
    await board.evaluate((el) => el.scrollBy({ left: el.clientWidth * 0.6 }));
    await until(() => inViewport(header("assigned"), viewport), (inView) => inView, "Assigned after a swipe");

    const tabs = page.getByTestId("column-tabs");
    for (const status of STATUSES) {
      const label = { inbox: "Inbox", assigned: "Assigned", in_progress: "In progress", review: "Review", done: "Done", blocked: "Blocked" }[status];
      const tab = tabs.getByRole("button", { name: new RegExp(`^${label}`) });
      await tab.scrollIntoViewIfNeeded();
      await tab.click();
      await until(() => inViewport(header(status), viewport), (inView) => inView, `${status} header after its tab`);
    }
    await page.screenshot({ path: screenshotPath("board-390-blocked.png") });
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(viewport.width);
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(journey!.pageErrors).toEqual([]);
  });
});

describe("keys and moves on a virtualised board", () => {
  test("j and k walk the cards, scrolling the long column; Enter opens the focused one", async () => {
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    const focusedId = () => page.evaluate(() => document.activeElement?.closest("[data-task-id]")?.getAttribute("data-task-id") ?? null);
    const inboxIds = async () => page.getByTestId("column-inbox").getByTestId("task-card").evaluateAll((els) => els.map((el) => el.getAttribute("data-task-id")));
    await page.keyboard.press("j");
    const first = (await inboxIds())[0];
    await until(focusedId, (id) => id === first, "the first card focused");
    for (let i = 0; i < 40; i++) await page.keyboard.press("j");
    const fortyFirst = await until(focusedId, (id) => id !== null && id !== first, "a card further down focused");
    // That card was scrolled into the rendered window.
    await expect(page.locator(`[data-testid="task-card"][data-task-id="${fortyFirst}"]`).isVisible()).resolves.toBe(true);
    await page.keyboard.press("k");
    await until(focusedId, (id) => id !== fortyFirst, "k moves back");
    const opened = await focusedId();
    await page.keyboard.press("Enter");
    await drawer(page).waitFor();
    await expect(page.url()).toContain(opened!);
    await closeDrawer(page);
    expect(journey!.pageErrors).toEqual([]);
  });

  test("a card in the long column moves to the next column by keyboard", async () => {
    const inbox = page.getByTestId("column-inbox");
    await inbox.evaluate((el) => el.querySelector("div.overflow-y-auto")?.scrollTo({ top: 0 }));
    // After the scroll the virtualiser swaps the rendered cards: wait until the first one stays put.
    const firstId = () => inbox.getByTestId("task-card").first().getAttribute("data-task-id");
    const taskId = (await until(
      async () => {
        const before = await firstId();
        await new Promise((resolve) => setTimeout(resolve, 250));
        const after = await firstId();
        return before !== null && before === after ? after : null;
      },
      (id) => id !== null,
      "the column's first card to settle after scrolling to the top",
    ))!;
    // Pinned by id: the virtualised column may re-render, and "the first card" may then be another one.
    const card = inbox.locator(`[data-testid="task-card"][data-task-id="${taskId}"]`);
    const title = (await card.getByRole("button").first().textContent())!;
    await card.getByRole("button", { name: `Move ${title}` }).focus();
    await page.keyboard.press("Space");
    await page.getByTestId("task-card-overlay").waitFor();
    // The preview shows it in the column to the right (Assigned, or the next one over when
    // Assigned's cards sit lower); Space drops it there. An arrow pressed before dnd-kit has
    // measured the columns does nothing, as it would for a person: press again.
    const columnOf = () =>
      page.evaluate((id) => document.querySelector(`[data-testid="task-card"][data-task-id="${id}"]`)?.closest("section")?.getAttribute("data-testid") ?? null, taskId);
    let column: string | null = null;
    for (let attempt = 0; attempt < 3 && (column === null || column === "column-inbox"); attempt++) {
      await page.keyboard.press("ArrowRight");
      column = await until(columnOf, (testId) => testId !== null && testId !== "column-inbox", "the card previewed in another column", 2_000).catch(() => null);
    }
    if (column === null) await page.screenshot({ path: screenshotPath("board-keyboard-move-failed.png") });
    expect(column).toMatch(/^column-/);
    await page.keyboard.press("Space");
    await page.getByTestId("task-card-overlay").waitFor({ state: "detached" });
    const status = column!.replace("column-", "");
    await page.getByTestId(column!).locator(`[data-testid="task-card"][data-task-id="${taskId}"]`).waitFor();
    const ada = await journey!.clientFor("Ada");
    await until(
      async () => (await ada.query(api.tasks.get, { taskId: taskId as Id<"tasks"> })).status,
      (now) => now === status,
      "the move on the server",
    );
    expect(journey!.pageErrors).toEqual([]);
  });
});

describe("filters", () => {
  test("search, assignee and tag narrow the board on the server, and survive a reload", async () => {
    await page.getByRole("searchbox", { name: "Search tasks" }).fill("pricing");
    await until(() => page.getByTestId("task-card").count(), (n) => n === 1, "one card for “pricing”");
    await expect(page.getByTestId("task-card").first().textContent()).resolves.toContain("Pricing page copy");
    await until(() => page.evaluate(() => location.search), (search) => search.includes("q=pricing"), "the search in the URL");
    // The column counts come from the server's answer: it sent only the match.
    await expect(count("inbox").textContent()).resolves.toBe("0");
    await expect(count("assigned").textContent()).resolves.toBe("1");

    await page.getByRole("searchbox", { name: "Search tasks" }).fill("");
    await page.getByLabel("Assignee").selectOption(writerKey);
    await page.getByRole("textbox", { name: "Tag" }).fill("copy");
    await page.getByRole("textbox", { name: "Tag" }).press("Enter");
    await until(() => page.getByTestId("task-card").count(), (n) => n === 4, "Writer's four copy tasks");
    await until(() => page.evaluate(() => location.search), (search) => search.includes("tag=copy") && search.includes("assignee="), "filters in the URL");
    const ada = await journey!.clientFor("Ada");
    const server = await ada.query(api.tasks.list, { departmentId, assignee: writerKey, tag: "copy" });
    expect(server.flatMap((column) => column.tasks.map((task) => task.title)).sort()).toEqual(["Pricing page copy", "Writer draft 0", "Writer draft 1", "Writer draft 2"]);
    await page.screenshot({ path: screenshotPath("board-filtered.png") });

    await page.reload();
    await page.getByTestId("board").waitFor();
    await until(() => page.getByTestId("task-card").count(), (n) => n === 4, "the same four after a reload");
    await expect(page.getByRole("textbox", { name: "Tag" }).inputValue()).resolves.toBe("copy");
    await expect(page.getByLabel("Assignee").inputValue()).resolves.toBe(writerKey);

    // Status narrows to one column; "Clear filters" brings the whole board back.
    await page.getByLabel("Status").selectOption("assigned");
    await until(() => page.locator('[data-testid^="column-"] h2').count(), (n) => n === 1, "only Assigned shown");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await until(() => count("inbox").textContent(), (text) => Number(text) >= BULK, "the whole board back");
    await expect(page.evaluate(() => location.search)).resolves.toBe("");
    expect(journey!.pageErrors).toEqual([]);
  });
});
