/**
 * Both themes, checked by a machine: every page and every dialog of the app,
 * in a light and a dark system setting, at 1440×900 and on a phone, passes
 * axe-core's WCAG 2.1 A and AA rules (colour contrast included) with no
 * violation. The squad has something on every screen first: a thread with a
 * run, a delegated subtask and an approval waiting, a channel with a thread,
 * a DM. Screenshots: tests/output/theme-<view>-<light|dark>-<width>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { auditLooks, drawer, LARGE, PHONE, showLook, startJourney, until, WIDE, type Journey, type Look } from "./journey";

/** The views also checked on a phone. */
const ON_A_PHONE = ["board", "drawer", "channel", "runs", "run", "new-task"];
/** Bound on waiting for an agent's run (the demo model answers in milliseconds; the machine may be busy). */
const RUN_MS = 30_000;

let journey: Journey;
let taskId: Id<"tasks">;
let subtaskId: Id<"tasks">;
let runId: Id<"runs">;
let channelId: Id<"channels">;
let dmId: Id<"channels">;

const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;

/** What one view needs: how to reach it from a signed-in page, and what shows it is ready. */
type View = { name: string; open: (page: Page) => Promise<void> };

async function go(page: Page, address: string, ready: (page: Page) => Promise<unknown>) {
  await page.goto(appAt(address));
  await ready(page);
}

/** Opens a dialog from the page at `address` by clicking `button`, and waits for it. */
function dialogView(name: string, address: string, button: (page: Page) => ReturnType<Page["getByRole"]>, dialogName: string | RegExp): View {
  return {
    name,
    open: async (page) => {
      await go(page, address, (p) => p.getByTestId("board").or(p.getByTestId("channels")).first().waitFor());
      await button(page).click();
      await page.getByRole("dialog", { name: dialogName }).waitFor();
    },
  };
}

const VIEWS: View[] = [
  { name: "board", open: (page) => go(page, "/d/product", (p) => p.getByTestId("task-card").first().waitFor()) },
  {
    name: "drawer",
    open: (page) =>
      go(page, `/d/product/tasks/${taskId}`, async (p) => {
        await drawer(p).getByTestId("approval-card").first().waitFor();
        await drawer(p).getByTestId("run").first().waitFor();
      }),
  },
  { name: "subtask", open: (page) => go(page, `/d/product/tasks/${subtaskId}`, (p) => drawer(p).getByRole("heading", { name: "Launch press kit" }).waitFor()) },
  { name: "agent", open: (page) => go(page, "/d/product/agents/writer", (p) => p.getByTestId("agent-tokens").waitFor()) },
  { name: "runs", open: (page) => go(page, "/d/product/runs", (p) => p.getByTestId("runs-page").getByText("Writer").first().waitFor()) },
  { name: "run", open: (page) => go(page, `/d/product/runs/${runId}`, (p) => p.getByRole("region", { name: "Run" }).getByRole("heading").first().waitFor()) },
  { name: "figures", open: (page) => go(page, "/d/product/figures", (p) => p.getByTestId("chart-per-day").waitFor()) },
  {
    name: "channel",
    open: async (page) => {
      await go(page, `/d/product/channels/${channelId}`, (p) => p.getByTestId("channel-message").filter({ hasText: "Kick-off" }).waitFor());
      await page.getByTestId("channel-message").filter({ hasText: "Kick-off" }).getByRole("button", { name: /repl/i }).first().click();
      await page.getByTestId("thread-panel").getByText("Checklist reviewed").waitFor();
    },
  },
  { name: "dm", open: (page) => go(page, `/d/product/channels/${dmId}`, (p) => p.getByTestId("channel-message").filter({ hasText: "release notes" }).first().waitFor()) },
  dialogView("new-task", "/d/product", (p) => p.getByRole("button", { name: "New task" }), "New task"),
  dialogView("new-agent", "/d/product", (p) => p.getByRole("button", { name: "New agent" }), /agent/i),
  dialogView("members", "/d/product", (p) => p.getByRole("button", { name: "Members" }), /Members/),
  dialogView("settings", "/d/product", (p) => p.getByRole("button", { name: "Settings" }), "Settings"),
  dialogView("account", "/d/product", (p) => p.getByRole("button", { name: "Account" }), "Change password"),
  dialogView("new-channel", "/d/product/channels", (p) => p.getByRole("button", { name: "Channel", exact: true }), "New channel"),
  dialogView("new-dm", "/d/product/channels", (p) => p.getByRole("button", { name: "DM", exact: true }), "New direct message"),
  {
    name: "shortcuts",
    open: async (page) => {
      await go(page, "/d/product", (p) => p.getByTestId("task-card").first().waitFor());
      await page.locator("body").press("?");
      await page.getByTestId("shortcuts-help").waitFor();
    },
  },
  {
    name: "palette",
    open: async (page) => {
      await go(page, "/d/product", (p) => p.getByTestId("task-card").first().waitFor());
      await page.keyboard.press("Control+k");
      await page.getByTestId("command-palette").waitFor();
      await page.keyboard.type("launch");
      await page.getByTestId("palette-item").first().waitFor();
    },
  },
  {
    name: "notifications",
    open: async (page) => {
      await go(page, "/d/product", (p) => p.getByTestId("task-card").first().waitFor());
      await page.getByRole("button", { name: /^Notifications/ }).click();
      await page.getByText("Notifications", { exact: true }).waitFor();
    },
  },
];

beforeAll(async () => {
  journey = await startJourney({ password: "themes-test-password" });
});

afterAll(async () => {
  await journey?.close();
});

describe("every screen in both themes passes axe-core's WCAG 2.1 AA rules", () => {
  test("the first-run setup and the sign-in screen", async () => {
    const page = await journey.newPage({ who: "Signed out" });
    /** The app's first screen in `look`, once `form` shows. */
    const firstScreen = (form: string) => async (look: Look) => {
      await showLook(page, look);
      await page.goto(journey.stack.appUrl);
      await page.getByTestId(form).getByLabel("Email").waitFor();
      return page;
    };
    const setup = await auditLooks("theme-setup", firstScreen("setup-form"), [WIDE]);
    await journey.ensurePerson("Ada");
    const signIn = await auditLooks("theme-signin", firstScreen("signin-form"), [WIDE]);
    expect({ ...setup, ...signIn }).toEqual({});
  });

  test("every page and dialog, light and dark, at 1440×900 and 390×844", async () => {
    // Something on every screen: a run that delegated a subtask, an approval waiting, a channel with a thread, a DM.
    await journey.ensurePerson("Ada");
    await journey.ensurePerson("Grace");
    const asAda = await journey.clientFor("Ada");
    const asGrace = await journey.clientFor("Grace");
    const [department] = await asAda.query(api.departments.listMine, {});
    taskId = await asAda.mutation(api.tasks.create, { departmentId: department._id, title: "Launch week", description: "Everything for the **launch**.", assigneeSessionKeys: [] });
    // One after the other, so the screens show one settled run per request. Sent back to back, both would be answered
    // too: a mention that arrives while Jarvis's run is still queued folds into it and is named in its why (lib/runWhy),
    // one that arrives while it runs gets a follow-up run.
    await asAda.mutation(api.messages.create, { taskId, content: "@Jarvis delegate the launch press kit to Writer" });
    const subtasks = await until(() => asAda.query(api.tasks.listSubtasks, { taskId }), (list) => list.subtasks.length > 0, "the delegated subtask", RUN_MS);
    // Jarvis idle again: his mention's run and the one Writer's result wakes have both ended.
    const ended = ["completed", "error", "aborted"];
    await until(() => asAda.query(api.runs.listForTask, { taskId }), (runs) => runs.length >= 2 && runs.every((run) => ended.includes(run.status)), "Jarvis's runs to end", RUN_MS);
    await asAda.mutation(api.messages.create, { taskId, content: "@Jarvis delegate the launch tagline to Writer, urgent" });
    await until(() => asAda.query(api.approvals.listForTask, { taskId }), (cards) => cards.some((card) => card.status === "pending"), "the approval card", RUN_MS);
    subtaskId = subtasks.subtasks[0]._id;
    runId = (await asAda.query(api.runs.listForTask, { taskId }))[0]._id;

    channelId = await asAda.mutation(api.channels.create, { departmentId: department._id, name: "launch-room", topic: "Everything launch", visibility: "project" });
    const kickOff = await asAda.mutation(api.channelMessages.post, { channelId, body: "Kick-off at **10**, the checklist is in the doc." });
    await asGrace.mutation(api.channels.setSubscribed, { channelId, subscribed: true });
    await asGrace.mutation(api.channelMessages.reply, { channelId, messageId: kickOff, body: "Checklist reviewed, two items left." });
    await asGrace.mutation(api.channelMessages.post, { channelId, body: "Press list is ready.", importance: "high" });
    const writer = (await asAda.query(api.agents.list, { departmentId: department._id })).find((agent) => agent.name === "Writer")!;
    dmId = await asAda.mutation(api.channels.openDm, { departmentId: department._id, participantKeys: [writer.sessionKey] });
    await asAda.mutation(api.channelMessages.post, { channelId: dmId, body: "When you have a minute: draft the release notes." });

    const page = await journey.newPage({ who: "Ada", viewport: LARGE });
    await journey.signIn(page, "Ada");
    const failures: Record<string, string[]> = {};
    for (const view of VIEWS) {
      const open = async (look: Look) => {
        await showLook(page, look);
        await view.open(page);
        return page;
      };
      Object.assign(failures, await auditLooks(`theme-${view.name}`, open, ON_A_PHONE.includes(view.name) ? [LARGE, PHONE] : [LARGE]));
    }
    await page.close();
    expect(failures).toEqual({});
    expect(journey.pageErrors).toEqual([]);
    // Fifty screens, each loaded, settled, screenshotted and checked: more than the default bound on a loaded machine.
  }, 360_000);
});
