/**
 * Polish a newcomer trips over (issue 42, points 6 and 7), in a real browser
 * against `npm start`'s stack, as Ada (the owner), in both themes at
 * 1440×900, 1280×800 and 390×844, with axe:
 *
 * - an approval card says what the call would do and lists its arguments as
 *   wrapped key: value lines, never wider than the card; the bell says
 *   "Jarvis asks to delegate “Launch tagline” to Writer";
 * - /help's answer does not push the drawer's thread up;
 * - at 1280 the side panel shows the whole squad (at 1440, two agents and
 *   eight #maestro messages), #maestro's
 *   composer and the newest activity's first lines (not its header only), and
 *   nothing in the roster or the column headers is cut, with "Waits for
 *   approval" showing;
 * - an API key is made in its own dialog, only by Create key, which says
 *   what the key will let the agent do; once made, only Copy and Done;
 * - two cards with one title show what tells them apart.
 *
 * Screenshots: tests/output/polish-<view>-<light|dark>-<width>.png.
 */
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { auditLooks, composer, cutTexts, drawer, LARGE, PHONE, showLook, startJourney, until, WIDE, type Journey } from "./journey";

/** Bound on waiting for Jarvis's run to ask for approval. */
const RUN_MS = 45_000;

let journey: Journey;
let ada: Page;
let departmentId: Id<"departments">;
let launchId: Id<"tasks">;

const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;

/** Whether all of `locator` is on screen and inside every scrolled box around it (not only its middle). */
async function wholeInView(locator: Locator): Promise<boolean> {
  return await locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return false;
    if (box.top < 0 || box.left < 0 || box.bottom > window.innerHeight + 0.5 || box.right > window.innerWidth + 0.5) return false;
    for (let parent = element.parentElement; parent !== null; parent = parent.parentElement) {
      const style = getComputedStyle(parent);
      if (style.overflowY === "visible" && style.overflowX === "visible") continue;
      const outer = parent.getBoundingClientRect();
      if (box.top < outer.top - 0.5 || box.bottom > outer.bottom + 0.5 || box.left < outer.left - 0.5 || box.right > outer.right + 0.5) return false;
    }
    return true;
  });
}

/** How much of `locator` shows through the window and every scrolled box around it: its visible height, and whether its top is in view. */
async function shownPart(locator: Locator): Promise<{ height: number; fromTop: boolean }> {
  return await locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    let top = Math.max(box.top, 0);
    let bottom = Math.min(box.bottom, window.innerHeight);
    for (let parent = element.parentElement; parent !== null; parent = parent.parentElement) {
      const style = getComputedStyle(parent);
      if (style.overflowY === "visible") continue;
      const outer = parent.getBoundingClientRect();
      top = Math.max(top, outer.top);
      bottom = Math.min(bottom, outer.bottom);
    }
    return { height: Math.max(0, Math.round(bottom - top)), fromTop: top <= box.top + 0.5 };
  });
}

/** Elements under `locator` wider than their box (content running off the side). */
async function overflowing(locator: Locator): Promise<string[]> {
  return await locator.evaluate((root) =>
    [root, ...Array.from(root.querySelectorAll("*"))]
      .filter((element) => element.scrollWidth > element.clientWidth + 1 && getComputedStyle(element).display !== "inline")
      .map((element) => `${element.tagName.toLowerCase()}[${element.getAttribute("data-testid") ?? ""}] ${element.scrollWidth} > ${element.clientWidth}`),
  );
}

beforeAll(async () => {
  journey = await startJourney({ password: "polish-password" });
  ada = await journey.newPage({ who: "Ada", viewport: LARGE });
  await journey.signIn(ada, "Ada");
  const client = await journey.clientFor("Ada");
  [{ _id: departmentId }] = await client.query(api.departments.listMine, {});
  launchId = await client.mutation(api.tasks.create, { departmentId, title: "Launch week", description: "Everything for the launch.", assigneeSessionKeys: [] });
  // Jarvis asks to delegate at high priority: an approval waits on the card, the bell and the roster.
  await ada.goto(appAt(`/d/product/tasks/${launchId}`));
  await composer(ada).fill("@Jarvis delegate the launch tagline to Writer, urgent");
  await drawer(ada).getByRole("button", { name: "Send" }).click();
  await drawer(ada).getByTestId("pending-cards").getByTestId("approval-card").waitFor({ timeout: RUN_MS });
}, 240_000);

afterAll(async () => {
  await journey?.close();
});

describe("an approval in words", () => {
  test("the card says what the call would do, its arguments wrapped as key: value lines within the card, at every size and in both themes", async () => {
    const failures = await auditLooks("polish-approval", async (look) => {
      await showLook(ada, look);
      await ada.goto(appAt(`/d/product/tasks/${launchId}`));
      const card = drawer(ada).getByTestId("pending-cards").getByTestId("approval-card");
      await card.waitFor();
      await card.scrollIntoViewIfNeeded();
      await expect(card.textContent()).resolves.toContain("Jarvis asks to delegate “Launch tagline” to Writer");
      const lines = await card.getByTestId("approval-arg").allTextContents();
      expect(lines.slice(0, 3)).toEqual(["assignees: Writer", "title: Launch tagline", "priority: high"]);
      expect(await overflowing(card), `nothing wider than the card at ${look.size.width}`).toEqual([]);
      const widths = await card.evaluate((element) => ({ card: element.getBoundingClientRect().right, drawer: element.closest('[role="dialog"]')!.getBoundingClientRect().right }));
      expect(widths.card).toBeLessThanOrEqual(widths.drawer);
      return ada;
    });
    expect(failures).toEqual({});
  });

  test("the bell says what Jarvis asks for, not the tool's first argument", async () => {
    await showLook(ada, { colorScheme: "light", size: LARGE });
    await ada.goto(appAt("/d/product"));
    await ada.getByRole("banner").getByRole("button", { name: /^Notifications/ }).click();
    const item = ada.getByRole("region", { name: "Waiting for a person" }).getByTestId("waiting-item");
    await item.waitFor();
    const text = (await item.textContent()) ?? "";
    expect(text).toContain("Jarvis asks to delegate “Launch tagline” to Writer");
    expect(text).not.toContain("Delegated from");
    await ada.keyboard.press("Escape");
  });
});

describe("/help in the drawer", () => {
  test("its answer floats over the thread: the composer and the drawer keep their place, at every size and in both themes", async () => {
    const failures = await auditLooks("polish-help", async (look) => {
      await showLook(ada, look);
      await ada.goto(appAt(`/d/product/tasks/${launchId}`));
      const box = composer(ada);
      await box.waitFor();
      const place = async () => await box.evaluate((element) => Math.round(element.getBoundingClientRect().top));
      const heading = drawer(ada).getByRole("heading", { name: "Launch week", exact: true });
      const before = { box: await place(), heading: await heading.evaluate((element) => Math.round(element.getBoundingClientRect().top)) };
      await box.fill("/help");
      await box.press("Control+Enter");
      const result = drawer(ada).getByTestId("slash-result");
      await result.waitFor();
      await until(() => box.inputValue(), (value) => value === "", "the composer to clear");
      await expect(result.textContent()).resolves.toContain("/delegate");
      expect(await place(), `the composer stays put at ${look.size.width}`).toBe(before.box);
      expect(await heading.evaluate((element) => Math.round(element.getBoundingClientRect().top))).toBe(before.heading);
      expect(await wholeInView(drawer(ada).getByTestId("slash-notice"))).toBe(true);
      return ada;
    });
    expect(failures).toEqual({});
    // × puts it away.
    await drawer(ada).getByTestId("slash-notice").getByRole("button", { name: "Dismiss" }).click();
    await drawer(ada).getByTestId("slash-notice").waitFor({ state: "detached" });
  });
});

describe("the side panel at 1280", () => {
  test("the whole squad, #maestro and the newest activity (not the header only) show; no role or column header is cut while Jarvis waits for approval", async () => {
    const failures = await auditLooks(
      "polish-side-panel",
      async (look) => {
        await showLook(ada, look);
        await ada.goto(appAt("/d/product"));
        const roster = ada.getByTestId("roster");
        await until(() => roster.getByTestId("roster-agent").count(), (n) => n === 4, "the four agents");
        await roster.getByTestId("agent-waiting").waitFor();
        const agents = await roster.getByTestId("roster-agent").all();
        // At 1280×800 all four whole; at 1440×900 #maestro's eight messages come first, and the squad (two whole) scrolls to its last (tests/browser/shell).
        const whole = look.size.width === WIDE.width ? agents : agents.slice(0, 2);
        for (const [i, agent] of whole.entries()) expect(await wholeInView(agent), `agent ${i + 1} of 4 whole at ${look.size.width}`).toBe(true);
        expect(await cutTexts(roster.getByTestId("roster-agent-role"))).toEqual([]);
        expect(await cutTexts(roster.getByTestId("roster-agent-name"))).toEqual([]);
        const newest = ada.getByTestId("activity-entry").first();
        await newest.waitFor();
        // Not the header only: the newest entry's first lines (who did what), from its top, at least 60 px of it.
        const shown = await shownPart(newest);
        expect(shown.fromTop, `the newest activity starts in view at ${look.size.width}`).toBe(true);
        expect(shown.height, `how much of the newest activity shows at ${look.size.width}`).toBeGreaterThanOrEqual(60);
        expect(await wholeInView(ada.getByTestId("chat-composer"))).toBe(true);
        expect(await cutTexts(ada.getByTestId("board").locator("section > header h2"))).toEqual([]);
        const page = await ada.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        expect(page.scroll).toBeLessThanOrEqual(page.client);
        return ada;
      },
      [WIDE, LARGE],
    );
    expect(failures).toEqual({});
  });
});

describe("an API key", () => {
  test("is made in its own dialog, which says what the ticked scopes allow; once made it offers only Copy and Done, at every size and in both themes", async () => {
    let made = 0;
    const failures = await auditLooks("polish-api-key", async (look) => {
      await showLook(ada, look);
      await ada.goto(appAt("/d/product"));
      if (look.size.width <= PHONE.width) await ada.getByRole("navigation", { name: "Department" }).getByRole("button", { name: "Squad" }).click();
      await ada.getByTestId("roster").getByRole("button", { name: "Edit Dev Bot" }).click();
      const keys = ada.getByRole("dialog", { name: "Edit Dev Bot" }).getByRole("region", { name: "API keys" });
      await expect(keys.getByTestId("api-keys-about").textContent()).resolves.not.toMatch(/tasks|#maestro chat/);
      await keys.getByRole("button", { name: "Create key" }).click();
      const dialog = ada.getByRole("dialog", { name: "New API key for Dev Bot" });
      await dialog.waitFor();
      await expect(dialog.getByTestId("key-powers").textContent()).resolves.not.toContain("Put tasks on the board");
      await dialog.getByRole("checkbox", { name: /tasks:write/ }).check();
      await expect(dialog.getByTestId("key-powers").textContent()).resolves.toContain("Put tasks on the board");
      await dialog.getByRole("button", { name: "Create key" }).click();
      made += 1;
      const shown = ada.getByRole("dialog", { name: "API key for Dev Bot" });
      await shown.getByTestId("new-api-key").waitFor();
      await expect(shown.getByRole("button").allTextContents()).resolves.toEqual(["Copy", "Done"]);
      expect(await overflowing(shown)).toEqual([]);
      return ada;
    });
    expect(failures).toEqual({});
    // Done closes it and leaves the agent's dialog; Cancel before Create makes nothing.
    await ada.getByRole("dialog", { name: "API key for Dev Bot" }).getByRole("button", { name: "Done" }).click();
    const keys = ada.getByRole("dialog", { name: "Edit Dev Bot" }).getByRole("region", { name: "API keys" });
    await until(() => keys.getByTestId("key-scopes").count(), (n) => n === made, `the ${made} keys listed`);
    await keys.getByRole("button", { name: "Create key" }).click();
    await ada.getByRole("dialog", { name: "New API key for Dev Bot" }).getByRole("button", { name: "Cancel" }).click();
    await ada.getByRole("dialog", { name: "New API key for Dev Bot" }).waitFor({ state: "detached" });
    await ada.waitForTimeout(500);
    await expect(keys.getByTestId("key-scopes").count()).resolves.toBe(made);
    await ada.keyboard.press("Escape");
  });
});

describe("cards with one title", () => {
  test("two “Launch tagline” cards show what tells them apart, at every size and in both themes", async () => {
    const client = await journey.clientFor("Ada");
    const ids = [
      await client.mutation(api.tasks.create, { departmentId, title: "Launch tagline", description: "First try.", assigneeSessionKeys: [] }),
      await client.mutation(api.tasks.create, { departmentId, title: "Launch tagline", description: "Second try.", assigneeSessionKeys: [] }),
    ];
    const failures = await auditLooks("polish-same-title", async (look) => {
      await showLook(ada, look);
      await ada.goto(appAt("/d/product"));
      const cards = ids.map((id) => ada.locator(`[data-testid="task-card"][data-task-id="${id}"]`));
      const shortIds = [];
      for (const card of cards) {
        await card.waitFor();
        shortIds.push(await card.getByTestId("card-short-id").textContent());
      }
      expect(shortIds[0]).not.toBe(shortIds[1]);
      expect(shortIds[0]).toMatch(/#[0-9a-z]{5}$/);
      // A card whose title is its own shows no id.
      await expect(ada.locator('[data-testid="task-card"]').filter({ hasText: "Pricing page copy" }).getByTestId("card-short-id").count()).resolves.toBe(0);
      return ada;
    });
    expect(failures).toEqual({});
    expect(journey.pageErrors).toEqual([]);
  });
});
