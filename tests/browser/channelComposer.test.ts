/**
 * The channel composer in a real browser against `npm start`'s stack: the
 * same `/` commands as a task's thread (a task-only one refused with where
 * it works), @mention completion, `#` task links sent as a chip that opens
 * the task (and `#` in that task's thread), and a thread's own address (opened, reloaded, Back to the
 * channel; another conversation's or a made-up id is a clear not-found).
 * axe finds nothing in light or dark; screenshots at 1440, 1280 and 390.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { accessibilityViolations, auditLooks, composer, drawer, screenshotPath, settled, showLook, startJourney, until, WIDE, type Journey } from "./journey";

const PASSWORD = "channel-composer-password";
const TASK = "Fix the login page";

let journey: Journey | undefined;
let ada: Page;
let channelId: Id<"channels">;
let otherChannelMessage: Id<"channelMessages">;
let taskId: Id<"tasks">;

const channelPath = () => `/d/product/channels/${channelId}`;
const box = (page: Page) => page.getByTestId("channel-view").getByRole("combobox", { name: "Message #composer-room" });
const path = (page: Page) => new URL(page.url()).pathname;

beforeAll(async () => {
  journey = await startJourney({ password: PASSWORD });
  await journey.ensurePerson("Ada");
  const client = await journey.clientFor("Ada");
  const [department] = await client.query(api.departments.listMine, {});
  const departmentId = department._id as Id<"departments">;
  taskId = await client.mutation(api.tasks.create, { departmentId, title: TASK });
  channelId = await client.mutation(api.channels.create, { departmentId, name: "composer-room", topic: "Where the composer is tried", visibility: "project" });
  const elsewhere = await client.mutation(api.channels.create, { departmentId, name: "elsewhere", visibility: "project" });
  otherChannelMessage = await client.mutation(api.channelMessages.post, { channelId: elsewhere, body: "A thread of another channel" });
  ada = await journey.newPage({ who: "Ada" });
  await journey.signIn(ada, "Ada");
});

afterAll(async () => {
  await journey?.close();
});

async function audit(page: Page, what: string) {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await settled(page);
    expect(await accessibilityViolations(page), `${what} (${colorScheme})`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

describe("the channel composer", () => {
  test("/ lists the commands that run here; a task-only one is refused, /help answers", async () => {
    await ada.goto(`${journey!.stack.appUrl.replace(/\/$/, "")}${channelPath()}`);
    await box(ada).click();
    await box(ada).pressSequentially("/");
    const menu = ada.getByRole("listbox", { name: "Slash commands" });
    await menu.waitFor();
    const names = await menu.getByRole("option").evaluateAll((options) => options.map((o) => o.getAttribute("data-command")));
    expect(names).toEqual(expect.arrayContaining(["help", "delegate", "review"]));
    expect(names).not.toContain("status");
    expect(names).not.toContain("assign");
    await audit(ada, "the / menu in a channel");

    await box(ada).fill("/status done");
    await ada.getByTestId("slash-error").filter({ hasText: "/status works in a task's thread." }).waitFor();
    await box(ada).press("Enter");
    await ada.getByTestId("channel-view").getByText("/status works in a task's thread.").first().waitFor();
    expect(await box(ada).inputValue()).toBe("/status done");

    await box(ada).fill("/help");
    await box(ada).press("Escape");
    await box(ada).press("Enter");
    await ada.getByTestId("slash-result").filter({ hasText: "/delegate" }).waitFor();
    expect(await box(ada).inputValue()).toBe("");
  });

  test("@ completes a name; # completes a task, sent as a chip that opens the task", async () => {
    await box(ada).pressSequentially("Hi @Wri");
    const people = ada.getByRole("listbox", { name: "People to mention" });
    await people.getByRole("option", { name: /Writer/ }).waitFor();
    await box(ada).press("Enter");
    expect(await box(ada).inputValue()).toBe("Hi @Writer ");

    await box(ada).pressSequentially("see #login");
    const tasks = ada.getByRole("listbox", { name: "Tasks to link" });
    await tasks.getByRole("option", { name: new RegExp(TASK) }).waitFor();
    await audit(ada, "the # list in a channel");
    await box(ada).press("ArrowDown");
    await box(ada).press("ArrowUp");
    await box(ada).press("Enter");
    expect(await box(ada).inputValue()).toBe(`Hi @Writer see #${TASK} `);
    await ada.getByTestId("pending-task-link").filter({ hasText: TASK }).waitFor();
    // The picked title is complete: no list reopens over it, so Enter sends.
    expect(await tasks.count()).toBe(0);
    await box(ada).press("Enter");

    const message = ada.getByTestId("channel-message").filter({ hasText: "Hi @Writer see" });
    const chip = message.getByTestId("task-chip");
    await chip.filter({ hasText: `#${TASK}` }).waitFor();
    expect(await chip.getAttribute("href")).toBe(`/d/product/tasks/${taskId}`);
    await ada.screenshot({ path: screenshotPath("channel-composer-chip-1280.png") });
    await chip.click();
    await drawer(ada).getByRole("heading", { name: TASK, exact: true }).waitFor();
    expect(path(ada)).toBe(`/d/product/tasks/${taskId}`);

    // In the task's own thread `#` links too: the chip shows under the message.
    const taskBox = composer(ada);
    await taskBox.click();
    await taskBox.pressSequentially("same as #login");
    await ada.getByRole("listbox", { name: "Tasks to link" }).getByRole("option", { name: new RegExp(TASK) }).waitFor();
    await taskBox.press("Enter");
    await taskBox.press("Control+Enter");
    await drawer(ada).getByTestId("message").filter({ hasText: "same as" }).getByTestId("task-chip").filter({ hasText: `#${TASK}` }).waitFor();
    await ada.goBack();
    await until(async () => path(ada), (p) => p === channelPath(), "Back to the channel");
    await message.waitFor();
  });

  test("a thread has its own address: opened, reloaded, Back to the channel; a foreign or made-up id is not found", async () => {
    const message = ada.getByTestId("channel-message").filter({ hasText: "Hi @Writer see" });
    // Writer, mentioned, may have answered already: the thread's button counts the replies then.
    await message.getByRole("button", { name: /^(Reply in thread|\d+ repl)/ }).click();
    await until(async () => path(ada), (p) => p.startsWith(`${channelPath()}/threads/`), "the thread's address");
    const threadAddress = path(ada);
    const panel = ada.getByTestId("thread-panel");
    await panel.getByTestId("task-chip").filter({ hasText: TASK }).waitFor();
    await panel.getByLabel("Reply in thread").fill("On it");
    await panel.getByLabel("Reply in thread").press("Enter");
    await panel.getByTestId("channel-message").filter({ hasText: "On it" }).waitFor();
    await audit(ada, "a thread beside its channel");

    await ada.reload();
    await ada.getByTestId("thread-panel").getByTestId("channel-message").filter({ hasText: "On it" }).waitFor();
    expect(path(ada)).toBe(threadAddress);
    const failures = await auditLooks("channel-thread", async (look) => {
      await showLook(ada, look);
      await ada.getByTestId("thread-panel").waitFor();
      return ada;
    });
    expect(failures).toEqual({});
    await showLook(ada, { colorScheme: "light", size: WIDE });

    await ada.goBack();
    await until(async () => path(ada), (p) => p === channelPath(), "Back to the channel");
    await ada.getByTestId("thread-panel").waitFor({ state: "detached" });
    await ada.getByTestId("channel-message").filter({ hasText: "Hi @Writer see" }).waitFor();

    // Up to here nothing went wrong in the page; what follows fails on purpose (the boundary logs it).
    expect(journey!.pageErrors).toEqual([]);

    // Another conversation's thread, and an id that is no thread at all: a clear not-found, nothing of theirs.
    for (const foreign of [otherChannelMessage, "not-a-thread"]) {
      await ada.goto(`${journey!.stack.appUrl.replace(/\/$/, "")}${channelPath()}/threads/${foreign}`);
      await ada.getByTestId("thread-not-found").getByText("Thread not found").waitFor();
      expect(await ada.getByText("A thread of another channel").count()).toBe(0);
    }
    await ada.screenshot({ path: screenshotPath("channel-thread-not-found-1280.png") });
    await audit(ada, "a thread not found");
    await ada.getByTestId("thread-not-found").getByRole("button", { name: "Back to the conversation" }).click();
    await until(async () => path(ada), (p) => p === channelPath(), "the conversation");

    // A viewer opens the same address: the thread and its chip, no box to write in.
    await journey!.ensurePerson("Vic", "viewer");
    const vic = await journey!.newPage({ who: "Vic" });
    await journey!.signIn(vic, "Vic");
    await vic.goto(`${journey!.stack.appUrl.replace(/\/$/, "")}${threadAddress}`);
    const seen = vic.getByTestId("thread-panel");
    await seen.getByTestId("channel-message").filter({ hasText: "On it" }).waitFor();
    await seen.getByTestId("task-chip").filter({ hasText: TASK }).waitFor();
    expect(await seen.getByRole("combobox").count()).toBe(0);
    expect(await vic.getByTestId("message-composer").count()).toBe(0);
    await vic.screenshot({ path: screenshotPath("channel-thread-viewer-1280.png") });
    await audit(vic, "a thread for a viewer");
  });
});
