/**
 * The first-run journey in a real browser, against the real `npm start` stack:
 * owner setup (with the WebUI password) → sign out → wrong password refused →
 * the seeded board, wide and narrow → an invite → the invited person's own
 * account, limited to their department → role change and removal followed live. Screenshots land in tests/output/ (git-ignored).
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { emailOf, fillSignIn, passwordOf, screenshotPath, startJourney, until, WIDE, type Journey } from "./journey";

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

  test("a fresh server offers the owner setup, which needs the WebUI password", async () => {
    page = await newPage();
    await page.goto(journey!.stack.appUrl);
    const form = page.getByTestId("setup-form");
    await form.waitFor();
    await expect(form.getByLabel("Setup password").isVisible()).resolves.toBe(true);
    // Tailwind is loaded: the form is a white card, not an unstyled default.
    const background = await form.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).toBe("rgb(255, 255, 255)");
    await page.screenshot({ path: screenshotPath("setup.png") });
    await form.getByLabel("Your name").fill("Ada");
    await form.getByLabel("Email").fill(emailOf("Ada"));
    await form.getByLabel("Password", { exact: true }).fill(passwordOf("Ada"));
    await form.getByLabel("Confirm password").fill(passwordOf("Ada"));
    await form.getByLabel("Setup password").fill("not-the-password");
    await form.getByRole("button", { name: "Create owner account" }).click();
    const alert = form.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Wrong setup password/);
    await form.getByLabel("Setup password").fill(PASSWORD);
    await form.getByRole("button", { name: "Create owner account" }).click();
    await page.getByTestId("board").waitFor();
    // Ada is now the owner the journey's helpers sign in and invite others with.
    journey!.adoptPerson("Ada");
  });

  test("signing out ends the session; a wrong password is refused; the right one shows the seeded board", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    const form = page.getByTestId("signin-form");
    await form.waitFor();
    await page.screenshot({ path: screenshotPath("signin.png") });
    await fillSignIn(page, emailOf("Ada"), "not-the-password");
    const alert = form.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toBe("Wrong email or password.");
    await expect(page.getByTestId("board").count()).resolves.toBe(0);

    await fillSignIn(page, emailOf("Ada"), passwordOf("Ada"));
    const board = page.getByTestId("board");
    await board.waitFor();
    await page.getByTestId("task-card").first().waitFor();
    await expect(page.getByTestId("signin-form").count()).resolves.toBe(0);
    // The board's data may land before the account's name (it is fetched alongside the shell's queries).
    await page.getByText("Ada", { exact: true }).first().waitFor();

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

    // The squad, the chat and the activity sit in the navigation row beside the pages rather than stacked under the board.
    const roster = page.getByTestId("roster");
    await expect(roster.isVisible()).resolves.toBe(false);
    await page.getByTestId("nav-pane-roster").click();
    await roster.waitFor();
    const rosterBox = await roster.boundingBox();
    expect(rosterBox!.y).toBeLessThan(NARROW.height);
    await page.getByRole("navigation", { name: "Department" }).getByRole("link", { name: "Board" }).click();
    await board.waitFor();

    await page.screenshot({ path: screenshotPath("board-narrow.png"), fullPage: true });
    expect(journey!.pageErrors).toEqual([]);
  });

  test("an invited person signs up with their own password, sees only their department, and follows role changes live", async () => {
    await page.setViewportSize(WIDE);
    // The owner makes a second department that Grace is not invited to.
    const asAda = await journey!.clientFor("Ada");
    await asAda.mutation(api.departments.create, { name: "Design Crew" });

    // The owner invites Grace from the members dialog and copies the link.
    await page.getByRole("button", { name: "Members" }).click();
    const dialog = page.getByTestId("members-dialog");
    await dialog.getByLabel("Email").fill(emailOf("Grace"));
    await dialog.getByRole("button", { name: "Create invite" }).click();
    const link = await dialog.getByLabel("Invite link").inputValue();
    expect(link).toContain("?invite=");
    await dialog.getByTestId("invite-row").first().waitFor();
    await page.screenshot({ path: screenshotPath("members.png") });

    const grace = await newPage();
    await grace.goto(link);
    const invite = grace.getByTestId("invite-form");
    await invite.waitFor();
    expect(await invite.textContent()).toContain("Join Product Squad");
    await invite.getByLabel("Your name").fill("Grace");
    await invite.getByLabel("Password", { exact: true }).fill(passwordOf("Grace"));
    await invite.getByLabel("Confirm password").fill(passwordOf("Grace"));
    await invite.getByRole("button", { name: "Join Product Squad" }).click();
    await grace.getByTestId("board").waitFor();
    await until(() => grace.getByTestId("task-card").count(), (n) => n === 5, "5 cards on Grace's board", SETTLE_MS);
    // Only her department: the owner's Design Crew is not offered to her.
    await expect(grace.getByText("Design Crew").count()).resolves.toBe(0);
    await expect(grace.getByRole("button", { name: "New task" }).isVisible()).resolves.toBe(true);

    // The owner makes her a viewer: her board loses its controls without a reload.
    const row = dialog.getByTestId("member-row").filter({ hasText: "Grace" });
    await row.waitFor();
    await row.getByLabel("Role of Grace").selectOption("viewer");
    await until(() => grace.getByRole("button", { name: "New task" }).count(), (n) => n === 0, "Grace's New task button to go", SETTLE_MS);
    await grace.getByText("Viewers can read but not post.").first().waitFor();
    await grace.screenshot({ path: screenshotPath("viewer.png") });

    // Removed, she loses the department at once.
    grace.once("dialog", (d) => void d.accept());
    page.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: "Remove" }).click();
    await grace.getByTestId("no-department").waitFor();
    await expect(grace.getByTestId("task-card").count()).resolves.toBe(0);
    expect(journey!.pageErrors).toEqual([]);
  });
});
