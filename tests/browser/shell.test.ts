/**
 * The app shell in a real browser against `npm start`'s stack: the layout at
 * 1440×900, 1280×800 and 390×844 (a resizable side panel that remembers its
 * width, a foldable #maestro, tabs on a phone), real addresses (a task opens
 * its drawer over the board, an agent and a run have pages, Back and Forward work, old
 * `#task=` links still open), and the task drawer following its thread.
 * Screenshots land in tests/output/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import path from "node:path";
import { PROJECT_ROOT } from "./stack";
import { cutTexts, drawer, emailOf, fillSignIn, passwordOf, screenshotPath, startJourney, until, type Journey } from "./journey";

const LARGE = { width: 1440, height: 900 };
const MEDIUM = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const COLUMNS = ["inbox", "assigned", "in_progress", "review", "done", "blocked"];

let journey: Journey;
let ada: Page;
let taskId: Id<"tasks">;

beforeAll(async () => {
  journey = await startJourney({ password: "shell-test-password" });
  ada = await journey.newPage({ who: "Ada", viewport: LARGE });
  await journey.signIn(ada, "Ada");
  const client = await journey.clientFor("Ada");
  const [department] = await client.query(api.departments.listMine, {});
  const board = await client.query(api.tasks.list, { departmentId: department._id });
  taskId = board.flatMap((column) => column.tasks).find((task) => task.title === "Pricing page copy")!._id;
});

afterAll(async () => {
  await journey?.close();
});

const pathOf = (page: Page) => new URL(page.url()).pathname;
/** The app's URL for an address such as `/d/product`. */
const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;
const sidePanelWidth = (page: Page) => page.getByTestId("side-panel").evaluate((el) => el.getBoundingClientRect().width);

/** Opens `url` in a fresh browser (its own storage), signs in as `name` there, and waits for the app. */
async function freshAt(url: string, name: string, viewport = LARGE): Promise<Page> {
  const page = await journey.newPage({ who: `${name} (fresh)`, viewport });
  await page.goto(url);
  await fillSignIn(page, emailOf(name), passwordOf(name));
  return page;
}

describe("layout", () => {
  test("1440×900: board and side panel side by side; the panel resizes by drag and keys, and remembers its width", async () => {
    await until(async () => pathOf(ada), (p) => p === "/d/product", "the board's address");
    const before = await sidePanelWidth(ada);
    const divider = ada.getByTestId("panel-divider");
    const box = (await divider.boundingBox())!;
    await ada.mouse.move(box.x + box.width / 2, box.y + 200);
    await ada.mouse.down();
    await ada.mouse.move(box.x - 60, box.y + 200, { steps: 4 });
    await ada.mouse.move(box.x - 100, box.y + 200, { steps: 4 });
    await ada.mouse.up();
    const dragged = await sidePanelWidth(ada);
    expect(dragged).toBeGreaterThan(before + 90);
    expect(dragged).toBeLessThan(before + 110);
    await divider.focus();
    await ada.keyboard.press("ArrowRight");
    expect(await sidePanelWidth(ada)).toBe(dragged - 16);

    await ada.reload();
    await ada.getByTestId("task-card").first().waitFor();
    expect(await sidePanelWidth(ada)).toBe(dragged - 16);
    // Every roster name carries its whole self in a tooltip, cut or not.
    for (const name of await ada.getByTestId("roster-agent-name").all()) {
      expect(await name.getAttribute("title")).toBe(await name.textContent());
    }
    for (const status of COLUMNS) await ada.getByTestId(`column-${status}`).waitFor();
    await ada.screenshot({ path: screenshotPath("shell-1440.png") });
    await divider.dblclick();
    expect(await sidePanelWidth(ada)).toBe(288);
  });

  test("#maestro folds away and stays folded across a reload", async () => {
    const pane = ada.getByTestId("chat-pane");
    await pane.getByRole("button", { name: "Hide" }).click();
    await expect(pane.getByRole("log").isVisible()).resolves.toBe(false);
    await ada.reload();
    await ada.getByTestId("task-card").first().waitFor();
    await pane.getByRole("button", { name: "Show" }).click();
    await pane.getByRole("log").waitFor();
  });

  test("1280×800: the board and the panel fit the window", async () => {
    await ada.setViewportSize(MEDIUM);
    await ada.getByTestId("side-panel").waitFor();
    const panel = (await ada.getByTestId("side-panel").boundingBox())!;
    expect(panel.x + panel.width).toBeLessThanOrEqual(MEDIUM.width);
    expect(await ada.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MEDIUM.width);
    // Nothing cut inside them either: every column's name and every agent's role whole (the panel is 288 px).
    await until(() => cutTexts(ada.locator("[data-testid^=column-] h2")), (cut) => cut.length === 0, "column headers whole at 1280");
    expect(await cutTexts(ada.getByTestId("roster-agent-role"))).toEqual([]);
    await ada.screenshot({ path: screenshotPath("shell-1280.png") });
  });

  test("the header: from 1440 down to a phone, no control covers another or leaves the window; the department stays readable", async () => {
    for (const width of [1440, 1280, 1180, 1024, 900, 768, 700, 390]) {
      await ada.setViewportSize({ width, height: 800 });
      await until(
        () => ada.evaluate(() => document.querySelector("header")!.getBoundingClientRect().width),
        (w) => w === width,
        `the header at ${width} px`,
      );
      // Every visible control and text of the header, as boxes: none may overlap another or leave the window.
      const boxes = await ada.evaluate(() =>
        [...document.querySelectorAll("header select, header button, header a, header [data-testid=model-label], header [title^='Signed in']")]
          .map((element) => ({ name: (element.getAttribute("aria-label") ?? element.textContent ?? "").trim().slice(0, 24), box: element.getBoundingClientRect() }))
          .filter(({ box }) => box.width > 0 && box.height > 0)
          .map(({ name, box }) => ({ name, left: box.left, right: box.right, top: box.top, bottom: box.bottom })),
      );
      expect(boxes.length, `controls at ${width} px`).toBeGreaterThan(3);
      for (const a of boxes) {
        expect(a.left, `${a.name} at ${width} px`).toBeGreaterThanOrEqual(0);
        expect(a.right, `${a.name} at ${width} px`).toBeLessThanOrEqual(width);
        for (const b of boxes) {
          if (a === b) continue;
          const overlap = a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
          expect(overlap, `${a.name} overlaps ${b.name} at ${width} px`).toBe(false);
        }
      }
      // The department's name is not squeezed to nothing.
      const select = boxes.find((b) => b.name.includes("Product Squad"))!;
      expect(select.right - select.left, `department select at ${width} px`).toBeGreaterThanOrEqual(100);
      if (width === 1280 || width === 1024 || width === 768) await ada.screenshot({ path: screenshotPath(`header-${width}.png`), clip: { x: 0, y: 0, width, height: 120 } });
    }
    await ada.setViewportSize(LARGE);
    await ada.getByTestId("side-panel").waitFor();
  });

  test("390×844: one navigation row (the pages, then Chat, Activity and Squad) instead of one long page; the place on screen is marked", async () => {
    await ada.setViewportSize(PHONE);
    const nav = ada.getByRole("navigation", { name: "Department" });
    await nav.waitFor();
    await expect(ada.getByRole("navigation", { name: "Department" }).count()).resolves.toBe(1);
    // The phone's own entries (Chat, Activity, Squad) come with the re-render the resize sets off.
    const items = async () => (await nav.locator("a, button").allTextContents()).map((text) => text.replace(/\d+$/, ""));
    await until(items, (texts) => texts.length === 9, "the phone's navigation entries");
    expect(await items()).toEqual(["Board", "Channels", "Runs", "Figures", "Commands", "Events", "Chat", "Activity", "Squad"]);
    const current = () => nav.locator('[aria-current]:not([aria-current="false"])').allTextContents();
    await expect(current()).resolves.toEqual(["Board"]);
    await expect(ada.getByTestId("chat-pane").isVisible()).resolves.toBe(false);
    // One screen or so, not everything stacked (it was 3,371 px).
    const height = await ada.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThan(PHONE.height * 1.5);
    await until(() => ada.evaluate(() => document.documentElement.scrollWidth), (w) => w === PHONE.width, "the page to fit the phone");
    await ada.screenshot({ path: screenshotPath("shell-390-board.png") });

    await nav.getByRole("button", { name: "Chat" }).click();
    await ada.getByTestId("chat-pane").waitFor();
    await expect(ada.getByTestId("board").isVisible()).resolves.toBe(false);
    await expect(current()).resolves.toEqual(["Chat"]);
    await ada.screenshot({ path: screenshotPath("shell-390-chat.png") });
    await nav.getByRole("button", { name: "Squad" }).click();
    await ada.getByTestId("roster").waitFor();
    await nav.getByRole("button", { name: "Activity" }).click();
    await expect(ada.getByTestId("roster").isVisible()).resolves.toBe(false);
    await ada.screenshot({ path: screenshotPath("shell-390-activity.png") });

    // The channels page marks Channels (it marked Board), and shows in the page's place.
    await nav.getByRole("link", { name: /^Channels/ }).click();
    await ada.getByTestId("channels").waitFor();
    await expect(current()).resolves.toEqual([expect.stringMatching(/^Channels/)]);
    // The runs are cards on a phone: nothing runs off the right edge.
    await nav.getByRole("link", { name: "Runs" }).click();
    await ada.getByTestId("runs-page").waitFor();
    await expect(current()).resolves.toEqual(["Runs"]);
    await until(() => ada.evaluate(() => document.documentElement.scrollWidth), (w) => w === PHONE.width, "the runs to fit the phone");
    await nav.getByRole("link", { name: "Board" }).click();
    await ada.getByTestId("board").waitFor();
    await ada.setViewportSize(LARGE);
    await ada.getByTestId("side-panel").waitFor();
  });
});

describe("addresses", () => {
  test("a card opens the task's address over the board; Back closes it, Forward opens it again", async () => {
    await ada.getByTestId("task-card").filter({ hasText: "Pricing page copy" }).getByRole("button", { name: "Pricing page copy", exact: true }).click();
    await drawer(ada).waitFor();
    expect(pathOf(ada)).toBe(`/d/product/tasks/${taskId}`);
    await expect(ada.getByTestId("board").isVisible()).resolves.toBe(true);
    await ada.goBack();
    await drawer(ada).waitFor({ state: "detached" });
    expect(pathOf(ada)).toBe("/d/product");
    await ada.goForward();
    await drawer(ada).waitFor();
    await drawer(ada).getByRole("button", { name: "Close task" }).first().click();
    await drawer(ada).waitFor({ state: "detached" });
    expect(pathOf(ada)).toBe("/d/product");
  });

  test("a task's address in a fresh browser opens its drawer after sign-in; closing shows the board", async () => {
    const page = await freshAt(appAt(`/d/product/tasks/${taskId}`), "Ada");
    await drawer(page).getByText("Pricing page copy").first().waitFor();
    expect(pathOf(page)).toBe(`/d/product/tasks/${taskId}`);
    await drawer(page).getByRole("button", { name: "Close task" }).first().click();
    await page.getByTestId("task-card").first().waitFor();
    expect(pathOf(page)).toBe("/d/product");
    await page.close();
  });

  test("an agent's address in a fresh browser shows its page; the roster links there and Back returns to the board", async () => {
    const page = await freshAt(appAt("/d/product/agents/jarvis"), "Ada");
    const agentPage = page.getByTestId("agent-page");
    await agentPage.waitFor();
    await expect(agentPage.getByRole("heading", { level: 1 }).textContent()).resolves.toContain("Jarvis");
    await expect(agentPage.textContent()).resolves.toContain("delegate_task");
    await page.screenshot({ path: screenshotPath("agent-page.png") });
    await page.close();

    await ada.getByTestId("roster-agent-name").filter({ hasText: "Writer" }).click();
    await ada.getByTestId("agent-page").getByRole("heading", { name: /Writer/ }).waitFor();
    expect(pathOf(ada)).toBe("/d/product/agents/writer");
    await ada.goBack();
    await ada.getByTestId("board").waitFor();
    expect(pathOf(ada)).toBe("/d/product");
  });

  test("a run's address in a fresh browser shows its timeline; from the board, Ctrl-K opens it and Back returns to the board", async () => {
    const client = await journey.clientFor("Ada");
    await client.mutation(api.messages.create, { taskId, content: "@Writer one line for the pricing hero, please" });
    const runs = await until(
      () => client.query(api.runs.listForTask, { taskId }),
      (list) => list.some((run) => run.agentName === "Writer" && run.status === "completed"),
      "Writer's run to complete",
    );
    const runId = runs.find((run) => run.agentName === "Writer")!._id;
    const runPath = `/d/product/runs/${runId}`;

    const page = await freshAt(appAt(runPath), "Ada");
    const shown = page.getByRole("region", { name: "Run" });
    await shown.getByRole("heading", { name: "Writer on “Pricing page copy”" }).waitFor();
    await shown.getByText("Completed").first().waitFor();
    expect(pathOf(page)).toBe(runPath);
    await page.screenshot({ path: screenshotPath("run-page.png") });
    await page.close();

    await ada.goto(appAt("/d/product"));
    await ada.getByTestId("task-card").first().waitFor();
    await ada.keyboard.press("Control+k");
    const palette = ada.getByTestId("command-palette");
    await palette.waitFor();
    await ada.keyboard.type("writer run");
    // Writer the agent may be listed first: the run is picked by name.
    await palette.getByRole("option", { name: /Writer on “Pricing page copy”/ }).click();
    await ada.getByRole("region", { name: "Run" }).getByRole("heading", { name: "Writer on “Pricing page copy”" }).waitFor();
    expect(pathOf(ada)).toBe(runPath);
    await ada.goBack();
    await ada.getByTestId("board").waitFor();
    expect(pathOf(ada)).toBe("/d/product");
  });

  test("an old #task=<id> link still opens the task, at its new address", async () => {
    await ada.goto(appAt(`/#task=${taskId}`));
    await drawer(ada).getByText("Pricing page copy").first().waitFor();
    expect(pathOf(ada)).toBe(`/d/product/tasks/${taskId}`);
    await drawer(ada).getByRole("button", { name: "Close task" }).first().click();
    await drawer(ada).waitFor({ state: "detached" });
  });
});

describe("keyboard", () => {
  test("? lists the shortcuts; Ctrl-K jumps to a task and to an agent; c starts a task; Esc closes each", async () => {
    await ada.goto(appAt("/d/product"));
    await ada.getByTestId("task-card").first().waitFor();
    await ada.locator("body").press("?");
    const help = ada.getByTestId("shortcuts-help");
    await help.waitFor();
    for (const text of ["Focus the next card", "Open the focused card", "New task", "Search the board"]) {
      await expect(help.textContent()).resolves.toContain(text);
    }
    await ada.screenshot({ path: screenshotPath("shortcuts-help.png") });
    await ada.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });

    await ada.keyboard.press("Control+k");
    const palette = ada.getByTestId("command-palette");
    await palette.waitFor();
    await ada.keyboard.type("pricing");
    await palette.getByRole("option", { name: /^Pricing page copy/ }).waitFor();
    await ada.screenshot({ path: screenshotPath("palette.png") });
    await ada.keyboard.press("Enter");
    await drawer(ada).getByText("Pricing page copy").first().waitFor();
    expect(pathOf(ada)).toBe(`/d/product/tasks/${taskId}`);
    await ada.keyboard.press("Escape");
    await drawer(ada).waitFor({ state: "detached" });
    expect(pathOf(ada)).toBe("/d/product");

    await ada.getByTestId("open-palette").click();
    await palette.waitFor();
    await ada.keyboard.type("writ");
    // Exactly Writer and Writer's one run (from the run address test), the agent first: agents are listed before runs.
    await until(
      () => palette.locator('[role="option"]').evaluateAll((options) => options.map((o) => `${o.getAttribute("data-kind")} ${o.textContent}`)),
      (items) => items.length === 2 && items[0].startsWith("agent ") && items[0].includes("Writer") && items[1].startsWith("run ") && items[1].includes("Writer on “Pricing page copy”"),
      "only Writer and Writer's run to match, the agent first",
    );
    await ada.keyboard.press("Enter");
    await ada.getByTestId("agent-page").waitFor();
    expect(pathOf(ada)).toBe("/d/product/agents/writer");
    await ada.goBack();
    await ada.getByTestId("board").waitFor();

    await ada.locator("body").press("c");
    const dialog = ada.getByRole("dialog", { name: "New task" });
    await dialog.waitFor();
    // A letter typed into the dialog's fields is text, not a shortcut.
    await dialog.getByLabel("Title").pressSequentially("c/?");
    await expect(dialog.getByLabel("Title").inputValue()).resolves.toBe("c/?");
    await ada.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(journey.pageErrors).toEqual([]);
  });
});

describe("the task drawer follows its thread", () => {
  test("at the bottom a new message scrolls into view; scrolled up, a 'New messages' jump appears instead", async () => {
    const client = await journey.clientFor("Ada");
    for (let i = 1; i <= 12; i++) await client.mutation(api.messages.create, { taskId, content: `Filler line ${i}\n\nwith a second paragraph` });
    await ada.goto(appAt(`/d/product/tasks/${taskId}`));
    const scroller = ada.getByTestId("task-drawer-scroller");
    await drawer(ada).getByText("Filler line 12").waitFor();

    // Read from the top: a new message does not move the reader.
    await scroller.evaluate((el) => el.scrollTo({ top: 0 }));
    await client.mutation(api.messages.create, { taskId, content: "Arrived while reading the top" });
    await drawer(ada).getByTestId("new-messages").waitFor();
    expect(await scroller.evaluate((el) => el.scrollTop)).toBe(0);
    await ada.screenshot({ path: screenshotPath("drawer-new-messages.png") });
    await drawer(ada).getByTestId("new-messages").click();
    await drawer(ada).getByTestId("new-messages").waitFor({ state: "detached" });

    // At the bottom: the next one comes into view by itself.
    await client.mutation(api.messages.create, { taskId, content: "Arrived at the bottom" });
    const last = drawer(ada).getByTestId("message").filter({ hasText: "Arrived at the bottom" });
    await last.waitFor();
    await until(
      () => scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight),
      (distance) => distance < 2,
      "the drawer to follow the newest message",
    );
    await expect(drawer(ada).getByTestId("new-messages").count()).resolves.toBe(0);
    expect(journey.pageErrors).toEqual([]);
  });
});

describe("every page, light and dark, wide and on a phone", () => {
  test("the board with a task's drawer, an agent's page, the runs and a channel each get a screenshot at 1440 and 390 px", async () => {
    // A channel with a message, so the channels page shows a conversation rather than its empty state.
    await ada.setViewportSize(LARGE);
    await ada.goto(appAt("/d/product/channels"));
    await ada.getByRole("button", { name: "Channel" }).click();
    const form = ada.getByTestId("new-channel-form");
    await form.getByLabel("Name").fill("Launch Plan");
    await form.getByRole("button", { name: "Create channel" }).click();
    const channelPath = await until(async () => pathOf(ada), (p) => /^\/d\/product\/channels\/.+/.test(p), "the channel's address");
    await ada.getByLabel("Message #launch-plan").fill("Kick-off at **10**");
    await ada.getByLabel("Message #launch-plan").press("Enter");
    await ada.getByTestId("channel-message").filter({ hasText: "Kick-off at" }).waitFor();

    const views: { name: string; address: string; ready: (page: Page) => Promise<void> }[] = [
      { name: "drawer", address: `/d/product/tasks/${taskId}`, ready: (page) => drawer(page).getByTestId("message").first().waitFor() },
      { name: "agent", address: "/d/product/agents/writer", ready: (page) => page.getByTestId("agent-tokens").waitFor() },
      { name: "runs", address: "/d/product/runs", ready: (page) => page.getByTestId("runs-page").getByText("Writer").first().waitFor() },
      { name: "channel", address: channelPath, ready: (page) => page.getByTestId("channel-message").first().waitFor() },
    ];
    for (const colorScheme of ["light", "dark"] as const) {
      await ada.emulateMedia({ colorScheme });
      for (const viewport of [LARGE, PHONE]) {
        await ada.setViewportSize(viewport);
        for (const view of views) {
          await ada.goto(appAt(view.address));
          await view.ready(ada);
          await ada.screenshot({ path: screenshotPath(`page-${view.name}-${colorScheme}-${viewport.width}.png`) });
        }
      }
    }
    await ada.emulateMedia({ colorScheme: "light" });
    await ada.setViewportSize(LARGE);
    expect(journey.pageErrors).toEqual([]);
  });
});

describe("theme and the README", () => {
  test("the shell and the board follow a dark system setting", async () => {
    await ada.goto(appAt("/d/product"));
    await ada.getByTestId("task-card").first().waitFor();
    const headerBackground = () => ada.locator("header").first().evaluate((el) => getComputedStyle(el).backgroundColor);
    const light = await headerBackground();
    await ada.emulateMedia({ colorScheme: "dark" });
    await until(headerBackground, (value) => value !== light, "the header to turn dark");
    // Mean of sRGB channels, 0 (black) to 255 (white).
    const lightness = (color: string) =>
      ada.evaluate((css) => {
        // Through a canvas, so any CSS colour syntax (Tailwind's oklch) comes back as sRGB.
        const canvas = document.createElement("canvas").getContext("2d")!;
        canvas.fillStyle = css;
        canvas.fillRect(0, 0, 1, 1);
        const [r, g, b] = canvas.getImageData(0, 0, 1, 1).data;
        return (r + g + b) / 3;
      }, color);
    const style = (testId: string, property: "backgroundColor" | "color") =>
      ada.getByTestId(testId).first().evaluate((el, name) => getComputedStyle(el)[name], property);
    // Dark means dark: the header, the columns and the cards are far from white, their text far from black.
    // Waited for, as the colours may still be changing when the media query flips.
    await until(async () => lightness(await headerBackground()), (value) => value < 80, "the header to be dark");
    await until(async () => lightness(await style("column-inbox", "backgroundColor")), (value) => value < 80, "the Inbox column to be dark");
    await until(async () => lightness(await style("task-card", "backgroundColor")), (value) => value < 90, "the cards to be dark");
    const title = () => ada.getByTestId("task-card").first().locator("[data-card-open]").evaluate((el) => getComputedStyle(el).color);
    await until(async () => lightness(await title()), (value) => value > 180, "the card titles to be light");
    await ada.screenshot({ path: screenshotPath("shell-dark.png") });
    await ada.emulateMedia({ colorScheme: "light" });
  });

  test("a fresh screenshot for the README: the board, the squad, people and an agent in #maestro", async () => {
    await ada.emulateMedia({ colorScheme: "light" });
    const asAda = await journey.clientFor("Ada");
    const [department] = await asAda.query(api.departments.listMine, {});
    await asAda.mutation(api.chat.postAsHuman, { departmentId: department._id, text: "Launch is Friday. @Jarvis, can you split the launch work?" });
    await ada.getByTestId("chat-message").filter({ hasText: "Launch is Friday" }).waitFor();
    await ada.screenshot({ path: path.join(PROJECT_ROOT, "docs", "screenshot.png") });
    expect(journey.pageErrors).toEqual([]);
  });
});

describe("the first ten minutes (issue 27)", () => {
  test("1440×900: #maestro shows at least eight messages, and the squad's last agent is in view or scrolls into it", async () => {
    await ada.setViewportSize(LARGE);
    await ada.goto(appAt("/d/product"));
    await ada.getByTestId("task-card").first().waitFor();
    const asAda = await journey.clientFor("Ada");
    const [department] = await asAda.query(api.departments.listMine, {});
    for (let i = 1; i <= 10; i++) await asAda.mutation(api.chat.postAsHuman, { departmentId: department._id, text: `Standup note ${i}` });
    await ada.getByTestId("chat-message").filter({ hasText: "Standup note 10" }).waitFor();
    const fullyShown = () =>
      ada.evaluate(() => {
        const log = document.querySelector('[data-testid="chat-pane"] [role="log"]')!.getBoundingClientRect();
        return [...document.querySelectorAll('[data-testid="chat-message"]')].filter((m) => {
          const box = m.getBoundingClientRect();
          return box.top >= log.top - 1 && box.bottom <= log.bottom + 1;
        }).length;
      });
    await until(fullyShown, (count) => count >= 8, "eight whole messages in #maestro");

    // The owner's posts carry her name, not the spec's "@human" chip.
    const last = ada.getByTestId("chat-message").filter({ hasText: "Standup note 10" });
    await expect(last.getByTestId("chat-person").textContent()).resolves.toContain("Ada");
    await expect(last.textContent()).resolves.not.toContain("@human");

    // The last agent can be reached: in view already, or by scrolling the squad's own list.
    const list = ada.getByTestId("roster").locator("ul");
    const lastAgent = ada.getByTestId("roster-agent").last();
    await lastAgent.scrollIntoViewIfNeeded();
    const [agentBox, listBox] = [(await lastAgent.boundingBox())!, (await list.boundingBox())!];
    expect(agentBox.y + agentBox.height).toBeLessThanOrEqual(listBox.y + listBox.height + 1);
    await ada.screenshot({ path: screenshotPath("ten-minutes-1440.png") });
  });

  test("1280×800: nothing in the header is cut, not even a long name", async () => {
    const page = await journey.newPage({ who: "Grace Hopper-Okafor", viewport: MEDIUM });
    await journey.signIn(page, "Grace Hopper-Okafor");
    const cut = await page.evaluate(() =>
      // The app's header (the first <header>; board columns have their own).
      [...document.querySelector("header")!.querySelectorAll("*")]
        .filter((el) => el instanceof HTMLElement && el.offsetWidth > 0 && el.children.length === 0 && el.scrollWidth > el.clientWidth + 1)
        .map((el) => el.textContent),
    );
    expect(cut).toEqual([]);
    await expect(page.locator("header").getByText("Grace Hopper-Okafor", { exact: true }).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: screenshotPath("ten-minutes-header-1280.png"), clip: { x: 0, y: 0, width: 1280, height: 120 } });
    await page.context().close();
  });

  test("/ focuses the board search; ? lists it; Ctrl-K finds #launch-room by 'launch room'; the Tag filter applies as you type", async () => {
    await ada.goto(appAt("/d/product"));
    await ada.getByTestId("task-card").first().waitFor();
    await ada.locator("body").press("/");
    await until(() => ada.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? null), (label) => label === "Search tasks", "/ to focus the board search");
    await expect(ada.getByTestId("command-palette").count()).resolves.toBe(0);
    await ada.keyboard.press("Escape");
    await ada.locator("body").click({ position: { x: 5, y: 400 } });

    const asAda = await journey.clientFor("Ada");
    const [department] = await asAda.query(api.departments.listMine, {});
    await asAda.mutation(api.channels.create, { departmentId: department._id, name: "launch-room", visibility: "project" });
    await ada.keyboard.press("Control+k");
    const palette = ada.getByTestId("command-palette");
    await palette.waitFor();
    await ada.keyboard.type("launch room");
    await palette.getByRole("option", { name: /#launch-room/ }).waitFor();
    await ada.keyboard.press("Escape");
    await palette.waitFor({ state: "detached" });

    // Typed, not entered: the board narrows to the tag and the address keeps it.
    await ada.getByLabel("Tag").first().pressSequentially("copy");
    await until(async () => new URL(ada.url()).searchParams.get("tag"), (tag) => tag === "copy", "the tag filter to apply as typed");
    await until(() => ada.getByTestId("task-card").allTextContents(), (cards) => cards.length >= 1 && cards.every((text) => text.includes("copy")), "only copy-tagged cards");
    await ada.getByLabel("Tag").first().fill("");
    await until(async () => new URL(ada.url()).searchParams.get("tag"), (tag) => tag === null, "the tag filter to clear");
    expect(journey.pageErrors).toEqual([]);
  });

  test("a viewer's board and drawer have no controls: no grips, selects, Edit, New task or Stop, while a member's do", async () => {
    await journey.ensurePerson("Vic", "viewer");
    const vic = await journey.newPage({ who: "Vic" });
    await journey.signIn(vic, "Vic");
    await expect(vic.getByRole("button", { name: /^Move / }).count()).resolves.toBe(0);
    await expect(ada.getByRole("button", { name: /^Move / }).count()).resolves.toBeGreaterThan(0);
    await expect(vic.getByRole("button", { name: "New task" }).count()).resolves.toBe(0);

    // A long run on the task, so a member sees Stop.
    const asAda = await journey.clientFor("Ada");
    await asAda.mutation(api.messages.create, { taskId, content: "@Jarvis take your time and think it over slowly" });
    await ada.goto(appAt(`/d/product/tasks/${taskId}`));
    await drawer(ada).getByRole("button", { name: "Stop" }).first().waitFor({ timeout: 30_000 });
    await vic.goto(appAt(`/d/product/tasks/${taskId}`));
    await drawer(vic).locator('[data-testid="run"][data-run-status="running"]').first().waitFor({ timeout: 30_000 });
    const inDrawer = drawer(vic);
    await expect(inDrawer.locator("select").count()).resolves.toBe(0);
    await expect(inDrawer.getByRole("button", { name: /^Edit|Stop|Rename/ }).count()).resolves.toBe(0);
    await expect(inDrawer.getByRole("button", { name: "Stop" }).count()).resolves.toBe(0);
    // The title is a heading to read, not a button that renames.
    await expect(inDrawer.getByRole("heading", { level: 2 }).first().getByRole("button").count()).resolves.toBe(0);
    await expect(inDrawer.getByTestId("task-status").textContent()).resolves.toBeTruthy();
    await vic.screenshot({ path: screenshotPath("ten-minutes-viewer-drawer.png") });
    await drawer(ada).getByRole("button", { name: "Stop" }).first().click();
    await vic.context().close();
    expect(journey.pageErrors).toEqual([]);
  });
});
