/**
 * The first-run journey in a real browser, against the real `npm start` stack:
 * sign-in screen → wrong password refused → right password → the seeded board,
 * wide and narrow. Screenshots land in tests/output/ (git-ignored).
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fillSignIn, screenshotPath, startJourney, until, WIDE, type Journey } from "./journey";

const PASSWORD = "browser-test-password";
const NARROW = { width: 390, height: 844 };
/** Bound on waits for values that settle after layout. */
const SETTLE_MS = 10_000;

/** What `convex/seed.ts` puts on the board, column by column. */
const SEEDED_COLUMNS: Record<string, string[]> = {
  inbox: ["Landing page for the launch"],
  assigned: ["Pricing page copy"],
  in_progress: ["Signup API rate limits"],
  review: ["Review the event schema"],
  done: ["Pick the launch date"],
  blocked: [],
};
const SEEDED_AGENTS = ["Jarvis", "Dev Bot", "Writer", "Archie"];

let journey: Journey | undefined;
const newPage = () => journey!.newPage({ timeoutMs: 30_000, consoleErrors: false });

beforeAll(async () => {
  journey = await startJourney({ password: PASSWORD });
});

afterAll(async () => {
  await journey?.close();
});

describe("npm start in a browser", () => {
  let page: Page;

  test("shows the sign-in screen", async () => {
    page = await newPage();
    await page.goto(journey!.stack.appUrl);
    const form = page.getByTestId("signin-form");
    await expect(form.waitFor()).resolves.toBeUndefined();
    await form.getByLabel("Password").waitFor();
    await expect(form.getByLabel("Your name").isVisible()).resolves.toBe(true);
    await expect(form.getByRole("button", { name: "Sign in" }).isVisible()).resolves.toBe(true);
    // The server said a password is required, and it was reachable.
    await expect(page.getByText("Could not reach the Maestro server").count()).resolves.toBe(0);
    // Tailwind is loaded: the form is a white card, not an unstyled default.
    const background = await form.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).toBe("rgb(255, 255, 255)");
    await page.screenshot({ path: screenshotPath("signin.png") });
  });

  test("refuses a wrong password", async () => {
    await fillSignIn(page, "Ada", "not-the-password");
    const alert = page.getByTestId("signin-form").getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toBe("Wrong password.");
    await expect(page.getByTestId("board").count()).resolves.toBe(0);
  });

  test("signs in with the right password and shows the seeded board", async () => {
    await fillSignIn(page, "Ada", PASSWORD);
    const board = page.getByTestId("board");
    await board.waitFor();
    await page.getByTestId("task-card").first().waitFor();
    await expect(page.getByTestId("signin-form").count()).resolves.toBe(0);
    await expect(page.getByText("Ada", { exact: true }).first().isVisible()).resolves.toBe(true);

    await until(() => page.getByTestId("task-card").count(), (n) => n === 5, "5 cards on the board", SETTLE_MS);
    for (const [status, titles] of Object.entries(SEEDED_COLUMNS)) {
      const column = board.getByTestId(`column-${status}`);
      await expect(column.isVisible(), `column-${status} visible`).resolves.toBe(true);
      const cards = column.getByTestId("task-card");
      await expect(cards.count(), `cards in ${status}`).resolves.toBe(titles.length);
      for (const title of titles) await expect(cards.getByText(title, { exact: true }).count()).resolves.toBe(1);
      await expect(column.getByTestId("column-count").textContent()).resolves.toBe(String(titles.length));
    }

    const roster = page.getByTestId("roster");
    await expect(roster.isVisible()).resolves.toBe(true);
    await expect(roster.getByRole("listitem").count()).resolves.toBe(SEEDED_AGENTS.length);
    for (const name of SEEDED_AGENTS) {
      await expect(roster.getByRole("listitem").filter({ hasText: name }).count(), name).resolves.toBe(1);
    }
    const lead = roster.getByRole("listitem").first();
    await expect(lead.textContent()).resolves.toContain("Jarvis");
    await expect(lead.textContent()).resolves.toContain("Squad lead");

    // Wide screens keep board and roster side by side, inside the viewport.
    const boardBox = await board.boundingBox();
    const rosterBox = await roster.boundingBox();
    expect(boardBox).not.toBeNull();
    expect(rosterBox).not.toBeNull();
    expect(rosterBox!.x).toBeGreaterThanOrEqual(boardBox!.x + boardBox!.width);
    expect(rosterBox!.x + rosterBox!.width).toBeLessThanOrEqual(WIDE.width);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(WIDE.width);

    await page.screenshot({ path: screenshotPath("board.png") });
    expect(journey!.pageErrors).toEqual([]);
  });

  test("stays usable on a narrow screen", async () => {
    await page.setViewportSize(NARROW);
    const firstCard = page.getByTestId("column-inbox").getByTestId("task-card").first();
    await firstCard.waitFor();
    // The page itself does not scroll sideways; the board scrolls inside itself.
    await until(() => page.evaluate(() => document.documentElement.scrollWidth), (w) => w === NARROW.width, "the page to fit the narrow viewport", SETTLE_MS);
    const box = await firstCard.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(NARROW.width);
    expect(box!.y).toBeLessThan(NARROW.height);
    await expect(page.getByRole("button", { name: "Sign out" }).isVisible()).resolves.toBe(true);

    // Further columns are reachable by scrolling the board.
    const board = page.getByTestId("board");
    const scrollable = await board.evaluate((el) => el.scrollWidth > el.clientWidth);
    expect(scrollable).toBe(true);
    const done = board.getByTestId("column-done");
    await done.scrollIntoViewIfNeeded();
    await expect(done.getByTestId("task-card").first().isVisible()).resolves.toBe(true);
    await board.evaluate((el) => el.scrollTo({ left: 0 }));

    // The roster stacks under the board rather than squeezing it.
    const roster = page.getByTestId("roster");
    const rosterBox = await roster.boundingBox();
    const boardBox = await board.boundingBox();
    const boardBottom = boardBox!.y + boardBox!.height;
    expect(rosterBox!.y).toBeGreaterThanOrEqual(boardBottom);
    // ...right under it, not pushed to the bottom of the screen by an empty stretch.
    expect(rosterBox!.y - boardBottom).toBeLessThanOrEqual(32);

    await page.screenshot({ path: screenshotPath("board-narrow.png"), fullPage: true });
    expect(journey!.pageErrors).toEqual([]);
  });

  test("a second person signs in separately and sees the same board", async () => {
    const other = await newPage();
    await other.goto(journey!.stack.appUrl);
    await other.getByTestId("signin-form").getByLabel("Password").waitFor();
    await fillSignIn(other, "Grace", PASSWORD);
    await other.getByTestId("board").waitFor();
    await until(() => other.getByTestId("task-card").count(), (n) => n === 5, "5 cards on the second board", SETTLE_MS);
    await expect(other.getByText("Grace", { exact: true }).first().isVisible()).resolves.toBe(true);
    // The first session is unaffected.
    await expect(page.getByTestId("task-card").count()).resolves.toBe(5);
    expect(journey!.pageErrors).toEqual([]);
  });
});
