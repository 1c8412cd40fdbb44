/**
 * The messaging acceptance journey (issue 13) in real browsers against
 * `npm start`'s stack, whose agents think with the demo model
 * (tools/demo-model/rules.ts). Two people, Ada (owner) and Grace (member),
 * each in a browser context of their own, and two agents, Writer and Dev Bot:
 *
 *   Ada creates #release-room and Grace follows it → Ada posts; Grace's
 *   channel list and header count it, and both clear live as she opens the
 *   channel → Grace replies in a thread (side panel); Ada sees the reply
 *   count, opens the thread, reads the reply and her badge clears → Ada DMs
 *   Writer (not blocking): Writer is idle, so the DM wakes it and its answer
 *   appears in the DM → Ada sends Writer a blocking message: Writer's run
 *   starts at once and its answer appears in the DM, and Writer's badge
 *   clears → Ada asks @Dev Bot in the channel, blocking:
 *   Dev Bot answers in that message's thread. Every wait is for a condition.
 *   Screenshots: tests/output/messaging-*.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { screenshotPath, startJourneyOfTwo, until, type Journey } from "./journey";

/** Bound on waiting for an agent's run (the demo model answers in milliseconds; the machine may be busy). */
const RUN_MS = 30_000;
const CHANNEL = "#release-room";
const ANNOUNCEMENT = "Release on Thursday: the checklist is in the doc.";
const THREAD_REPLY = "Checklist reviewed, two items left.";
const DM_NOTE = "Please draft the release notes.";
/** What the demo model says when a plain (non-blocking) message woke it (rules.ts). */
const NOTE_ANSWER = "Sure, Ada: here's a first line to start from: “Less busywork, more shipping.” Give it a card on the board and I'll draft the rest there.";
const DM_BLOCKING = "Stop please: are the release notes ready?";
const CHANNEL_BLOCKING = "@Dev Bot is the release build green?";
/** What the demo model says when a blocking message woke it with no task of its own (rules.ts). */
const ANSWER = "Got it, Ada: I've stopped to read your message and will act on it now.";

let journey: Journey;
let ada: Page;
let grace: Page;

beforeAll(async () => {
  ({ journey, ada, grace } = await startJourneyOfTwo("messaging-journey-password"));
});

afterAll(async () => {
  await journey?.close();
});

const rows = (page: Page) => page.getByTestId("channel-row");
const row = (page: Page, label: string) => rows(page).filter({ hasText: label });
const messages = (page: Page) => page.getByTestId("channel-view").getByTestId("channel-message");
const message = (page: Page, text: string) => messages(page).filter({ hasText: text });
const threadPanel = (page: Page) => page.getByTestId("thread-panel");
const rosterRow = (page: Page, name: string) => page.getByTestId("roster-agent").filter({ has: page.getByTestId("roster-agent-name").getByText(name, { exact: true }) });
const rosterStatus = (page: Page, name: string) => rosterRow(page, name).getByTestId("agent-status");

/**
 * The text of a badge, or null while there is none. One read that never
 * waits: counting first and then reading waited for the element (15 s) when
 * the badge cleared in between.
 */
async function badge(page: Page, locator: ReturnType<Page["getByTestId"]>): Promise<string | null> {
  return (await locator.allTextContents())[0] ?? null;
}
const navUnread = (page: Page) => badge(page, page.getByTestId("nav-unread"));
const rowUnread = (page: Page, label: string) => badge(page, row(page, label).getByTestId("unread-badge"));
const agentUnread = (page: Page, name: string) => badge(page, rosterRow(page, name).getByTestId("agent-unread"));

/** Types into a conversation's composer (channel, DM or thread), ticks Blocking when asked, and sends with Enter. */
async function say(page: Page, composerLabel: string, text: string, { blocking = false, scope = page.getByTestId("channel-view") } = {}) {
  const box = scope.getByLabel(composerLabel);
  await box.fill(text);
  if (blocking) await scope.getByRole("checkbox", { name: /Blocking/ }).check();
  await box.press("Enter");
  await until(() => box.inputValue(), (value) => value === "", "the composer to clear after sending");
}

describe("messaging: two people and two agents", () => {
  test("Ada creates a channel and Grace follows it; Ada's post raises Grace's badges, which clear live when she opens the channel", async () => {
    await ada.getByTestId("nav-channels").click();
    await ada.getByRole("button", { name: "Channel" }).click();
    const form = ada.getByTestId("new-channel-form");
    await form.getByLabel("Name").fill("Release Room");
    await form.getByLabel("Topic").fill("Shipping the release");
    await form.getByRole("button", { name: "Create channel" }).click();
    await until(async () => new URL(ada.url()).pathname, (p) => /^\/d\/product\/channels\/.+/.test(p), "the channel's address");
    await ada.getByTestId("channel-view").getByRole("heading", { name: CHANNEL }).waitFor();

    // Grace finds it in her list, live, and follows it; then leaves it for the channel list alone.
    await grace.getByTestId("nav-channels").click();
    await row(grace, CHANNEL).click();
    await grace.getByTestId("channel-view").getByRole("button", { name: "Follow" }).click();
    await grace.getByTestId("channel-view").getByRole("button", { name: "Unfollow" }).waitFor();
    await grace.getByTestId("nav-channels").click();
    await grace.getByText("Pick a channel or a direct message.").waitFor();

    await say(ada, `Message ${CHANNEL}`, ANNOUNCEMENT);
    await message(ada, ANNOUNCEMENT).waitFor();

    // Grace: the row and the header count it …
    await until(() => rowUnread(grace, CHANNEL), (text) => text === "1", "the unread badge on Grace's channel row");
    await until(() => navUnread(grace), (text) => text === "1", "Grace's unread count in the header");
    await grace.screenshot({ path: screenshotPath("messaging-grace-unread.png") });
    // … and opening the channel clears both, with no reload.
    await grace.evaluate(() => Object.assign(window, { __noReload: true }));
    await row(grace, CHANNEL).click();
    await message(grace, ANNOUNCEMENT).waitFor();
    await until(() => rowUnread(grace, CHANNEL), (text) => text === null, "Grace's row badge to clear");
    await until(() => navUnread(grace), (text) => text === null, "Grace's header badge to clear");
    await expect(grace.evaluate(() => (window as { __noReload?: boolean }).__noReload)).resolves.toBe(true);
    expect(journey.pageErrors).toEqual([]);
  });

  test("Grace replies in a thread; Ada sees the reply count, opens the thread beside the channel and reads it; her badge clears", async () => {
    await message(grace, ANNOUNCEMENT).getByRole("button", { name: "Reply in thread" }).click();
    await say(grace, "Reply in thread", THREAD_REPLY, { scope: threadPanel(grace) });
    await threadPanel(grace).getByTestId("channel-message").filter({ hasText: THREAD_REPLY }).waitFor();

    // Ada, who started the thread, is reading the channel: the reply shows on her message
    // and is read as it arrives, so no badge is left to clear.
    const replies = message(ada, ANNOUNCEMENT).getByRole("button", { name: "1 reply" });
    await replies.waitFor();
    await until(() => navUnread(ada), (text) => text === null, "Ada's badge to stay clear while she reads the channel");
    await replies.click();
    await threadPanel(ada).getByTestId("channel-message").filter({ hasText: THREAD_REPLY }).getByText("Grace", { exact: true }).waitFor();
    await until(() => navUnread(ada), (text) => text === null, "Ada's badge to clear once the thread is open");
    await ada.screenshot({ path: screenshotPath("messaging-thread.png") });
    expect(journey.pageErrors).toEqual([]);
  });

  test("Ada DMs Writer without Blocking: Writer is idle, so the DM wakes it and it answers in the DM; its badge clears in both rosters", async () => {
    await ada.getByRole("button", { name: "DM" }).click();
    const form = ada.getByTestId("new-dm-form");
    await form.getByLabel(/^Writer/).check();
    await form.getByRole("button", { name: "Open DM" }).click();
    await ada.getByTestId("channel-view").getByRole("heading", { name: "Writer" }).waitFor();
    await say(ada, "Message Writer", DM_NOTE);
    await message(ada, DM_NOTE).waitFor();
    await row(ada, "Writer").waitFor();
    await expect(message(ada, DM_NOTE).getByText("blocking", { exact: true }).count()).resolves.toBe(0);

    // "Blocking" is for interrupting a busy agent: an idle one is woken by any message addressed to it.
    const answer = message(ada, NOTE_ANSWER);
    await answer.waitFor({ timeout: RUN_MS });
    await expect(answer.getByText("Writer", { exact: true }).count()).resolves.toBe(1);
    for (const page of [ada, grace]) {
      await until(() => agentUnread(page, "Writer"), (text) => text === null, "Writer's badge to clear", RUN_MS);
      await until(() => rosterStatus(page, "Writer").textContent(), (s) => s === "Idle", "Writer to be idle again", RUN_MS);
    }
    await rosterRow(ada, "Writer").scrollIntoViewIfNeeded();
    await ada.screenshot({ path: screenshotPath("messaging-agent-badge.png") });
    expect(journey.pageErrors).toEqual([]);
  });

  test("a blocking DM makes Writer answer at once, in the DM; the badge on Writer clears in both rosters", async () => {
    await say(ada, "Message Writer", DM_BLOCKING, { blocking: true });
    const asked = message(ada, DM_BLOCKING);
    await asked.waitFor();
    await expect(asked.getByText("blocking", { exact: true }).count()).resolves.toBe(1);

    // The answer arrives in the conversation, from Writer, after the question.
    const answer = message(ada, ANSWER);
    await answer.waitFor({ timeout: RUN_MS });
    await expect(answer.getByText("Writer", { exact: true }).count()).resolves.toBe(1);
    const order = await messages(ada).allTextContents();
    expect(order.findIndex((t) => t.includes(ANSWER))).toBeGreaterThan(order.findIndex((t) => t.includes(DM_BLOCKING)));

    // Its run read both messages: no badge on Writer any more; Ada, looking at the DM, has nothing unread either.
    for (const page of [ada, grace]) await until(() => agentUnread(page, "Writer"), (text) => text === null, "Writer's badge to clear", RUN_MS);
    await until(() => navUnread(ada), (text) => text === null, "Ada to have read the answer she is looking at");
    for (const page of [ada, grace]) await until(() => rosterStatus(page, "Writer").textContent(), (s) => s === "Idle", "Writer to be idle again", RUN_MS);

    // The backend agrees: one run, started by the blocking message, completed; the answer is in the DM and only there.
    const asAda = await journey.clientFor("Ada");
    const [department] = await asAda.query(api.departments.listMine, {});
    const channels = await asAda.query(api.channels.list, { departmentId: department._id });
    const dm = channels.find((c) => c.kind === "dm" && c.title === "Writer")!;
    const history = await asAda.query(api.channelMessages.history, { channelId: dm._id, paginationOpts: { numItems: 10, cursor: null } });
    expect(history.page.map((m) => [m.from.kind, m.body, m.blocking])).toEqual([
      ["agent", ANSWER, false],
      ["member", DM_BLOCKING, true],
      ["agent", NOTE_ANSWER, false],
      ["member", DM_NOTE, false],
    ]);
    // Two runs of Writer, one per message, both on its own inbox task and completed.
    const runs = await asAda.query(api.runs.listForDepartment, { departmentId: department._id });
    const writerRuns = runs.filter((r) => r.agentName === "Writer");
    expect(writerRuns).toEqual([
      expect.objectContaining({ status: "completed", trigger: "message", title: "Inbox: Writer" }),
      expect.objectContaining({ status: "completed", trigger: "message", title: "Inbox: Writer" }),
    ]);
    const [run] = await asAda.query(api.runs.listForTask, { taskId: writerRuns[0].taskId });
    expect(run.trigger).toEqual({ kind: "message", channelMessageId: history.page[1]._id });
    const taskThread = await asAda.query(api.messages.list, { taskId: writerRuns[0].taskId, paginationOpts: { numItems: 10, cursor: null } });
    expect(taskThread.page.filter((m) => m.content === ANSWER)).toEqual([]);
    await ada.screenshot({ path: screenshotPath("messaging-dm-answer.png") });
    expect(journey.pageErrors).toEqual([]);
  });

  test("a blocking @mention in the channel makes Dev Bot answer at once, in that message's thread; Grace sees the question live", async () => {
    await row(ada, CHANNEL).click();
    await message(ada, ANNOUNCEMENT).waitFor();
    await say(ada, `Message ${CHANNEL}`, CHANNEL_BLOCKING, { blocking: true });
    const asked = message(ada, "is the release build green?");
    await asked.waitFor();
    await expect(asked.locator("[data-mention]").first().textContent()).resolves.toBe("@Dev Bot");

    // Grace, in the channel, sees it arrive; Dev Bot's answer goes to its thread, not the channel's top level.
    await message(grace, "is the release build green?").waitFor();
    const replies = asked.getByRole("button", { name: "1 reply" });
    await replies.waitFor({ timeout: RUN_MS });
    await expect(message(ada, ANSWER).count()).resolves.toBe(0);
    await replies.click();
    const answer = threadPanel(ada).getByTestId("channel-message").filter({ hasText: ANSWER });
    await answer.waitFor();
    await expect(answer.getByText("Dev Bot", { exact: true }).count()).resolves.toBe(1);
    await expect(threadPanel(ada).getByTestId("channel-message").first().textContent()).resolves.toContain("is the release build green?");

    for (const page of [ada, grace]) {
      await until(() => agentUnread(page, "Dev Bot"), (text) => text === null, "Dev Bot's badge to clear", RUN_MS);
      await until(() => rosterStatus(page, "Dev Bot").textContent(), (s) => s === "Idle", "Dev Bot to be idle again", RUN_MS);
    }
    await until(() => navUnread(ada), (text) => text === null, "Ada to have read the answer in the open thread");
    await ada.screenshot({ path: screenshotPath("messaging-channel-answer.png") });
    await grace.screenshot({ path: screenshotPath("messaging-grace-channel.png") });
    expect(journey.pageErrors).toEqual([]);
  });
});
