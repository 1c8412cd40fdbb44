/**
 * The second ten minutes of a newcomer (issue 42), in a real browser against
 * `npm start`'s stack, for an owner (Ada), a member (Grace) and a viewer
 * (Vic), in both themes at 1440×900, 1280×800 and 390×844, with axe:
 *
 * - a run's life where you are: after `@Jarvis take your time…` the
 *   thinking, the streaming reply and Stop are in view next to the composer,
 *   a phone included.
 *
 * - a new department starts with Jarvis as squad lead, and its owner adds
 *   the demo specialists in one click; ticking "Squad lead" in the agent
 *   modal ticks delegate_task.
 *
 * - every place has an address you can reload: Settings at a section,
 *   Members, Account; an unknown address shows the app's own "Page not
 *   found" with a way back; an unknown run or task id says not found.
 *
 * - small things: the header at exactly 1440 px with three people present,
 *   a viewer's approval card and bell, Esc after a click in a dialog, the
 *   phone's Chat / Activity / Squad on screen.
 *
 * Screenshots: tests/output/ten-<view>-<light|dark>-<width>.png.
 */
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { auditLooks, composer, drawer, LARGE, PHONE, showLook, startJourney, until, type Journey } from "./journey";

/** Bound on waiting for an agent's run (the slow demo reply takes about 20 s on a busy machine). */
const RUN_MS = 45_000;
const SLOW = "@Jarvis take your time and think it over slowly";

let journey: Journey;
let ada: Page;
let taskId: Id<"tasks">;

const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;

/** Whether `locator` is on screen and not hidden by a scrolled container: the point at its middle is it (or inside it). */
async function inView(locator: Locator): Promise<boolean> {
  return await locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return false;
    if (box.top < 0 || box.left < 0 || box.bottom > window.innerHeight || box.right > window.innerWidth) return false;
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return hit !== null && (hit === element || element.contains(hit));
  });
}

/**
 * The page errors no test here expects: the unknown ids' failed queries (which say "not found") and the
 * browser's log of the 404 an unknown address is answered with are on purpose.
 */
function unexpectedErrors(): string[] {
  return journey.pageErrors.filter(
    (error) => !/Validator error: Expected ID for table "(runs|tasks)", got `not-a-(run|task)`/.test(error) && !error.endsWith("Failed to load resource: the server responded with a status of 404 (Not Found)"),
  );
}

/** Stops whatever runs beside the composer, and waits until they are gone. */
async function stopRuns(page: Page): Promise<void> {
  const now = drawer(page).getByTestId("run-now");
  await composer(page).waitFor();
  while ((await now.count()) > 0) {
    await now.first().getByRole("button", { name: "Stop" }).click().catch(() => {});
    await page.waitForTimeout(300);
  }
}

beforeAll(async () => {
  journey = await startJourney({ password: "ten-minutes-password" });
  ada = await journey.newPage({ who: "Ada", viewport: LARGE });
  await journey.signIn(ada, "Ada");
  const client = await journey.clientFor("Ada");
  const [department] = await client.query(api.departments.listMine, {});
  const board = await client.query(api.tasks.list, { departmentId: department._id });
  taskId = board.flatMap((column) => column.tasks).find((task) => task.title === "Landing page for the launch")!._id;
});

afterAll(async () => {
  await journey?.close();
});

describe("a run's life where you are", () => {
  test("after sending, the thinking, the streaming reply and Stop are in view next to the composer, at every size and in both themes", async () => {
    const failures = await auditLooks("ten-run-in-view", async (look) => {
      await showLook(ada, look);
      await ada.goto(appAt(`/d/product/tasks/${taskId}`));
      await stopRuns(ada);
      await composer(ada).fill(SLOW);
      await drawer(ada).getByRole("button", { name: "Send" }).click();
      await until(() => composer(ada).inputValue(), (value) => value === "", "the composer to clear");
      const typing = drawer(ada).getByTestId("typing");
      await until(() => typing.textContent().catch(() => ""), (text) => (text ?? "").includes("Step 1"), "the reply to stream", RUN_MS);
      const stop = drawer(ada).getByTestId("run-now").getByRole("button", { name: "Stop" });
      expect(await inView(typing), `streaming text in view at ${look.size.width}`).toBe(true);
      expect(await inView(stop), `Stop in view at ${look.size.width}`).toBe(true);
      expect(await inView(composer(ada))).toBe(true);
      return ada;
    });
    // The last look's run is still going: Stop ends it, and the line beside the composer goes.
    await drawer(ada).getByTestId("run-now").getByRole("button", { name: "Stop" }).click();
    await drawer(ada).getByTestId("run-now").waitFor({ state: "detached", timeout: RUN_MS });
    await drawer(ada).locator('[data-testid="run"][data-run-status="aborted"]').first().waitFor();
    expect(failures).toEqual({});
    expect(journey.pageErrors).toEqual([]);
  }, 600_000);
});

describe("a new department's squad", () => {
  test("a department made in the app starts with Jarvis as squad lead; the owner adds the demo specialists in one click", async () => {
    const client = await journey.clientFor("Ada");
    await client.mutation(api.departments.create, { name: "Design Lab" });
    const roster = (page: Page) => page.getByTestId("roster");
    const failures = await auditLooks("ten-new-squad", async (look) => {
      await showLook(ada, look);
      await ada.goto(appAt("/d/design-lab"));
      await ada.getByTestId("board").waitFor();
      if (look.size.width < 700) await ada.getByRole("navigation", { name: "Department" }).getByRole("button", { name: "Squad" }).click();
      await roster(ada).getByTestId("roster-agent").first().waitFor();
      await roster(ada).getByTestId("add-specialists").waitFor();
      return ada;
    });
    expect(failures).toEqual({});
    const names = () => roster(ada).getByTestId("roster-agent-name").allTextContents();
    await expect(names()).resolves.toEqual(["Jarvis"]);
    await expect(roster(ada).getByTestId("roster-agent").first().textContent()).resolves.toContain("Squad lead");
    await roster(ada).getByRole("button", { name: "Add the demo specialists" }).click();
    await until(names, (list) => list.length === 4, "the demo specialists to join");
    expect(await names()).toEqual(["Jarvis", "Archie", "Dev Bot", "Writer"]);
    await roster(ada).getByTestId("add-specialists").waitFor({ state: "detached" });
    const department = (await client.query(api.departments.listMine, {})).find((d) => d.slug === "design-lab")!;
    const jarvis = (await client.query(api.agents.list, { departmentId: department._id })).find((agent) => agent.isSquadLead)!;
    expect(jarvis.allowedTools).toContain("delegate_task");

    // A new agent made lead may delegate: the modal ticks delegate_task with "Squad lead".
    await roster(ada).getByRole("button", { name: "New agent" }).click();
    const modal = ada.getByRole("dialog");
    await modal.getByRole("checkbox", { name: /Squad lead/ }).check();
    await expect(modal.getByTestId("tool-delegate_task").isChecked()).resolves.toBe(true);
    await modal.getByTestId("tool-delegate_task").uncheck();
    await modal.getByTestId("lead-without-delegate").waitFor();
    await ada.keyboard.press("Escape");
    await modal.waitFor({ state: "detached" });
    expect(journey.pageErrors).toEqual([]);
  }, 300_000);
});

describe("every place has an address", () => {
  const PLACES: Array<{ name: string; address: string; ready: (page: Page) => Promise<unknown> }> = [
    {
      name: "settings-retention",
      address: "/d/product/settings/retention",
      ready: async (page) => {
        const dialog = page.getByRole("dialog", { name: "Settings" });
        await dialog.waitFor();
        await until(() => inView(dialog.locator('[data-settings-section="retention"]')), (shown) => shown, "the Retention section in view");
      },
    },
    { name: "members", address: "/d/product/members", ready: (page) => page.getByRole("dialog", { name: /Members/ }).waitFor() },
    { name: "account", address: "/account", ready: (page) => page.getByRole("dialog", { name: "Change password" }).waitFor() },
    { name: "not-found", address: "/d/product/no-such-place", ready: (page) => page.getByRole("heading", { name: "Page not found" }).waitFor() },
    { name: "unknown-run", address: "/d/product/runs/not-a-run", ready: (page) => page.getByText("Run not found.").waitFor() },
    { name: "unknown-task", address: "/d/product/tasks/not-a-task", ready: (page) => page.getByRole("dialog").getByText("Task not found.").waitFor() },
  ];

  for (const place of PLACES) {
    test(`${place.address} opens when reloaded, at every size and in both themes`, async () => {
      const failures = await auditLooks(`ten-address-${place.name}`, async (look) => {
        await showLook(ada, look);
        await ada.goto(appAt(place.address));
        await place.ready(ada);
        await ada.reload();
        await place.ready(ada);
        return ada;
      });
      expect(failures).toEqual({});
    }, 300_000);
  }

  test("an unknown address is the app's own page with a 404, and its link leads back to the board", async () => {
    // The unknown ids above failed their queries on purpose (and said "not found"); nothing else may have failed.
    // So did the unknown address, whose page comes with a 404 on purpose (the browser logs the status).
    const expected = (error: string) =>
      /Validator error: Expected ID for table "(runs|tasks)", got `not-a-(run|task)`/.test(error) || error.endsWith("Failed to load resource: the server responded with a status of 404 (Not Found)");
    expect(journey.pageErrors.filter((error) => !expected(error))).toEqual([]);
    journey.pageErrors.splice(0, journey.pageErrors.length);
    const response = await ada.goto(appAt("/somewhere/else"));
    expect(response?.status()).toBe(404);
    await ada.getByRole("heading", { name: "Page not found" }).waitFor();
    await ada.getByRole("link", { name: "Back to the Product Squad board" }).click();
    await ada.getByTestId("board").waitFor();
    expect(new URL(ada.url()).pathname).toBe("/d/product");
  });

  test("Settings, Members and Account put their address in the bar, and closing returns to the board", async () => {
    await showLook(ada, { colorScheme: "light", size: LARGE });
    await ada.goto(appAt("/d/product"));
    for (const [button, address, dialog] of [
      ["Settings", "/d/product/settings", "Settings"],
      ["Members", "/d/product/members", /Members/],
      ["Account", "/d/product/account", "Change password"],
    ] as const) {
      await ada.getByRole("banner").getByRole("button", { name: button }).click();
      await ada.getByRole("dialog", { name: dialog }).waitFor();
      expect(new URL(ada.url()).pathname).toBe(address);
      await ada.keyboard.press("Escape");
      await ada.getByRole("dialog").waitFor({ state: "detached" });
      expect(new URL(ada.url()).pathname).toBe("/d/product");
    }
    // A section picked in the dialog is in the address too.
    await ada.getByRole("banner").getByRole("button", { name: "Settings" }).click();
    await ada.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Commands" }).click();
    expect(new URL(ada.url()).pathname).toBe("/d/product/settings/commands");
    await ada.keyboard.press("Escape");
    expect(unexpectedErrors()).toEqual([]);
  });
});

describe("small things that read as bugs", () => {
  let grace: Page;
  let vic: Page;
  let launchId: Id<"tasks">;

  beforeAll(async () => {
    await journey.ensurePerson("Grace", "member");
    await journey.ensurePerson("Vic", "viewer");
    grace = await journey.newPage({ who: "Grace", viewport: LARGE });
    await journey.signIn(grace, "Grace");
    vic = await journey.newPage({ who: "Vic", viewport: LARGE });
    await journey.signIn(vic, "Vic");
    const client = await journey.clientFor("Ada");
    const [department] = await client.query(api.departments.listMine, {});
    launchId = await client.mutation(api.tasks.create, { departmentId: department._id, title: "Launch week", description: "Everything for the launch.", assigneeSessionKeys: [] });
  }, 120_000);

  test("at exactly 1440 px with three people present, the header fits: nothing runs off, Sign out whole", async () => {
    const failures = await auditLooks("ten-header-three", async (look) => {
      await showLook(ada, { ...look, size: LARGE });
      await ada.goto(appAt("/d/product"));
      await until(() => ada.getByTestId("presence").locator("[title]").count().catch(() => 0), (n) => n >= 2, "Grace and Vic present beside Ada");
      const header = ada.locator("header").first();
      const widths = await header.evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth, page: document.documentElement.scrollWidth }));
      expect(widths.scroll, "header scrollWidth").toBeLessThanOrEqual(widths.client);
      expect(widths.page).toBe(LARGE.width);
      expect(await inView(ada.getByRole("button", { name: "Sign out" }))).toBe(true);
      return ada;
    }, [LARGE]);
    expect(failures).toEqual({});
  });

  test("a viewer's approval card says it waits for a member, and her bell neither lists nor counts it; a member's does", async () => {
    await ada.goto(appAt(`/d/product/tasks/${launchId}`));
    await composer(ada).fill("@Jarvis delegate the launch tagline to Writer, urgent");
    await drawer(ada).getByRole("button", { name: "Send" }).click();
    await drawer(ada).getByTestId("pending-cards").getByTestId("approval-card").waitFor({ timeout: RUN_MS });
    const failures = await auditLooks("ten-viewer-approval", async (look) => {
      await showLook(vic, look);
      await vic.goto(appAt(`/d/product/tasks/${launchId}`));
      const card = drawer(vic).getByTestId("approval-card").first();
      await card.waitFor();
      await expect(card.textContent()).resolves.toContain("Waiting for a member");
      await expect(card.textContent()).resolves.not.toContain("Waiting for you");
      await expect(card.getByRole("button").count()).resolves.toBe(0);
      return vic;
    });
    expect(failures).toEqual({});
    await showLook(vic, { colorScheme: "light", size: LARGE });
    await vic.goto(appAt("/d/product"));
    const bell = (page: Page) => page.getByRole("banner").getByRole("button", { name: /^Notifications/ });
    await until(() => bell(grace).getAttribute("aria-label"), (label) => (label ?? "").includes("waiting for a person"), "Grace's bell to count the approval");
    await expect(bell(vic).getAttribute("aria-label")).resolves.not.toContain("waiting");
    await bell(vic).click();
    await expect(vic.getByTestId("waiting-item").count()).resolves.toBe(0);
    await vic.keyboard.press("Escape");
    await grace.goto(appAt(`/d/product/tasks/${launchId}`));
    await expect(drawer(grace).getByTestId("approval-card").first().textContent()).resolves.toContain("Waiting for you");
  });

  test("Esc closes a dialog after a button in it was clicked (Revoke took itself, and the focus, away)", async () => {
    const client = await journey.clientFor("Ada");
    const [department] = await client.query(api.departments.listMine, {});
    await client.mutation(api.invites.create, { departmentId: department._id, email: "newcomer@example.com", role: "member" });
    await showLook(ada, { colorScheme: "light", size: LARGE });
    await ada.goto(appAt("/d/product/members"));
    const dialog = ada.getByRole("dialog", { name: /Members/ });
    await dialog.getByTestId("invite-row").filter({ hasText: "newcomer@example.com" }).getByRole("button", { name: "Revoke" }).click();
    await dialog.getByTestId("invite-row").filter({ hasText: "newcomer@example.com" }).waitFor({ state: "detached" });
    await ada.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(new URL(ada.url()).pathname).toBe("/d/product");
  });

  test("on a phone, Chat, Activity and Squad are on screen from the start", async () => {
    const failures = await auditLooks("ten-phone-tabs", async (look) => {
      await showLook(grace, look);
      await grace.goto(appAt("/d/product"));
      await grace.getByTestId("board").waitFor();
      for (const pane of ["chat", "activity", "roster"]) {
        const tab = grace.getByTestId(`nav-pane-${pane}`);
        await tab.waitFor();
        expect(await inView(tab), `${pane} tab on screen`).toBe(true);
      }
      return grace;
    }, [PHONE]);
    expect(failures).toEqual({});
    expect(unexpectedErrors()).toEqual([]);
  });
});
