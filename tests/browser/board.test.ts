/**
 * The squad board, live between two people, in real browsers against the real
 * `npm start` stack: Ada (first to sign in, so admin) and Grace, each in their
 * own browser context. A task created by one shows up for the other, a drag
 * shows in both, an @mention posted in a drawer reaches both drawers and the
 * backend (message mentions, agent trigger, the mentioned person's bell), the
 * mentioned agent answers in both drawers (npm start's demo model), and an
 * admin's agent edit shows in both feeds. Screenshots land in tests/output/.
 *
 * Dev Bot is offline while the people move the card: an online Dev Bot picks
 * its assignment up at once and moves the card to In progress itself, racing
 * the drag. It is back online before it is @mentioned.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import {
  closeDrawer,
  composer,
  drawer,
  messageIn,
  screenshotPath,
  send,
  startJourney,
  until,
  writeWithMention,
  type Journey,
} from "./journey";

const PASSWORD = "board-test-password";

const TITLE = "Dark mode for the dashboard";
const DESCRIPTION = "Respect the system setting, with a **manual toggle** in the header.";
const DEV_BOT_KEY = "agent:dev-bot:product";
/** Dev Bot's tools after the edit, in registry order (as the server stores and the feed lists them). */
const DEV_BOT_TOOLS_AFTER = ["delegate_task", "post_message", "update_task_status", "chat.post", "chat.getNew"];


let journey: Journey | undefined;
const newPage = (who: string) => journey!.newPage({ who });
const signIn = (page: Page, name: string) => journey!.signIn(page, name);
const clientFor = (name: string) => journey!.clientFor(name);

/** Sets an agent's status as Ada (an admin), through the same mutation the roster uses. */
async function setAgentStatus(sessionKey: string, status: "idle" | "offline"): Promise<void> {
  const asAda = await clientFor("Ada");
  const [department] = await asAda.query(api.departments.listMine, {});
  const agent = (await asAda.query(api.agents.list, { departmentId: department._id })).find((a) => a.sessionKey === sessionKey);
  expect(agent).toBeDefined();
  await asAda.mutation(api.agents.setStatus, { agentId: agent!._id, status });
}

const card = (page: Page, column: string) => page.getByTestId(`column-${column}`).getByTestId("task-card").filter({ hasText: TITLE });
const activity = (page: Page, text: string) => page.getByTestId("activity-feed").getByTestId("activity-entry").filter({ hasText: text });

async function openCard(page: Page, column: string): Promise<void> {
  await card(page, column).getByRole("button", { name: TITLE, exact: true }).click();
  await drawer(page).getByRole("heading", { name: TITLE }).waitFor();
  // The thread has loaded (empty or not) once the composer is up.
  await composer(page).waitFor();
}

async function notificationCount(page: Page): Promise<number> {
  const badge = page.getByTestId("notification-count");
  return (await badge.count()) === 0 ? 0 : Number(await badge.textContent());
}

beforeAll(async () => {
  journey = await startJourney({ password: PASSWORD });
});

afterAll(async () => {
  await journey?.close();
});

describe("the squad board, live in two browsers", () => {
  let ada: Page;
  let grace: Page;
  let taskId: Id<"tasks">;

  test("Ada signs in first and is admin; Grace signs in second and is not", async () => {
    ada = await newPage("Ada");
    await signIn(ada, "Ada");
    // Ada's membership is settled (admin) before Grace's is made.
    await ada.getByTestId("roster").getByRole("button", { name: "New agent" }).waitFor();
    grace = await newPage("Grace");
    await signIn(grace, "Grace");
    await expect(grace.getByTestId("task-card").count()).resolves.toBe(5);
    await expect(grace.getByTestId("roster").getByRole("button", { name: "New agent" }).count()).resolves.toBe(0);
    await expect(grace.getByTestId("roster").getByRole("button", { name: /^Edit / }).count()).resolves.toBe(0);
    await expect(ada.getByTestId("roster").getByRole("button", { name: /^Edit / }).count()).resolves.toBe(4);
    // A marker that a reload would wipe: everything below must arrive live.
    for (const page of [ada, grace]) await page.evaluate(() => Object.assign(window, { __noReload: true }));
    expect(journey!.pageErrors).toEqual([]);
  });

  test("a task Ada creates in the New task dialog appears on Grace's board and feed, live", async () => {
    await setAgentStatus(DEV_BOT_KEY, "offline");
    await ada.getByRole("button", { name: "New task" }).click();
    const dialog = ada.getByRole("dialog", { name: "New task" });
    await dialog.waitFor();
    await dialog.getByLabel("Title").fill(TITLE);
    await dialog.getByLabel("Description").fill(DESCRIPTION);
    await dialog.getByLabel("Priority").selectOption("high");
    await dialog.getByLabel("Tags").fill("ui, web");
    const devBot = dialog.getByRole("group", { name: /Assignees/ }).getByRole("checkbox", { name: /Dev Bot/ });
    await devBot.check();
    await expect(devBot.isChecked()).resolves.toBe(true);
    await dialog.getByRole("button", { name: "Create task" }).click();
    await dialog.waitFor({ state: "detached" });

    // An agent assignee puts it straight into Assigned.
    await card(ada, "assigned").waitFor();
    taskId = (await card(ada, "assigned").getAttribute("data-task-id")) as Id<"tasks">;
    expect(taskId).toBeTruthy();

    const onGrace = card(grace, "assigned");
    await onGrace.waitFor();
    await expect(onGrace.getAttribute("data-task-id")).resolves.toBe(taskId);
    await expect(onGrace.getByTitle("Priority").textContent()).resolves.toBe("High");
    await expect(onGrace.getByRole("img", { name: "Assigned to Dev Bot" }).count()).resolves.toBe(1);
    await expect(onGrace.getByRole("list", { name: "Tags" }).textContent()).resolves.toBe("uiweb");
    await expect(grace.getByTestId("task-card").count()).resolves.toBe(6);
    await expect(grace.getByTestId("column-assigned").getByTestId("column-count").textContent()).resolves.toBe("2");

    await activity(grace, `Ada created “${TITLE}”`).waitFor();
    await activity(grace, `Ada assigned “${TITLE}” to Dev Bot`).waitFor();
    await expect(grace.evaluate(() => (window as { __noReload?: boolean }).__noReload)).resolves.toBe(true);

    await grace.screenshot({ path: screenshotPath("board-live.png") });
    expect(journey!.pageErrors).toEqual([]);
  });

  test("Grace drags the card to In progress with the mouse; both boards show it there", async () => {
    const from = card(grace, "assigned");
    const target = grace.getByTestId("column-in_progress");
    const start = (await from.boundingBox())!;
    const to = (await target.boundingBox())!;
    const x = start.x + start.width / 2;
    const y = start.y + start.height / 2;
    await grace.mouse.move(x, y);
    await grace.mouse.down();
    // Past the sensor's 5 px activation distance, in steps, so dnd-kit sees a drag start.
    await grace.mouse.move(x + 12, y + 4, { steps: 4 });
    await grace.getByTestId("task-card-overlay").waitFor();
    await grace.mouse.move(to.x + to.width / 2, to.y + to.height - 20, { steps: 15 });
    // The preview has moved the card into the column under the pointer: drop there.
    await card(grace, "in_progress").waitFor();
    await grace.mouse.up();
    await grace.getByTestId("task-card-overlay").waitFor({ state: "detached" });

    for (const page of [grace, ada]) {
      await card(page, "in_progress").waitFor();
      await until(() => card(page, "assigned").count(), (n) => n === 0, "the card to leave Assigned");
      await until(() => page.getByTestId("column-in_progress").getByTestId("column-count").textContent(), (t) => t === "2", "In progress to count 2");
      await activity(page, `Grace moved “${TITLE}” from Assigned to In progress`).waitFor();
    }
    // The drop was a drag, not a click: no drawer opened.
    await expect(drawer(grace).count()).resolves.toBe(0);
    await expect(grace.getByRole("alert").count()).resolves.toBe(0);
    expect(journey!.pageErrors).toEqual([]);
  });

  test("Ada moves it on to Review with the keyboard (grip, Space, →, Space); both boards show it there", async () => {
    const grip = card(ada, "in_progress").getByRole("button", { name: `Move ${TITLE}` });
    await grip.focus();
    await ada.keyboard.press("Space");
    await ada.getByTestId("task-card-overlay").waitFor();
    await ada.keyboard.press("ArrowRight");
    await card(ada, "review").waitFor();
    await ada.keyboard.press("Space");
    await ada.getByTestId("task-card-overlay").waitFor({ state: "detached" });

    for (const page of [ada, grace]) {
      await card(page, "review").waitFor();
      await until(() => card(page, "in_progress").count(), (n) => n === 0, "the card to leave In progress");
      await activity(page, `Ada moved “${TITLE}” from In progress to Review`).waitFor();
    }
    await expect(ada.getByRole("alert").count()).resolves.toBe(0);
    expect(journey!.pageErrors).toEqual([]);
  });

  test("an @Dev Bot message from the composer's list shows in both open drawers and triggers Dev Bot once", async () => {
    await setAgentStatus(DEV_BOT_KEY, "idle");
    await openCard(ada, "review");
    await openCard(grace, "review");

    await writeWithMention(ada, "Could you pick this up, ", "De", "Dev Bot", "please? Start with the header toggle.");
    const content = "Could you pick this up, @Dev Bot please? Start with the header toggle.";
    const sent = await send(ada, content);
    await sent.waitFor();

    for (const page of [ada, grace]) {
      const message = messageIn(page, content);
      await message.waitFor();
      await expect(message.getAttribute("data-author-kind")).resolves.toBe("member");
      await expect(message.textContent()).resolves.toContain("Ada");
      await expect(message.locator("[data-mention]").textContent()).resolves.toBe("@Dev Bot");
    }
    await ada.screenshot({ path: screenshotPath("drawer.png") });

    // The server resolved the mention to Dev Bot's session key...
    const asAda = await clientFor("Ada");
    const thread = await asAda.query(api.messages.list, { taskId, paginationOpts: { numItems: 10, cursor: null } });
    const stored = thread.page.find((m) => m.content === content);
    expect(stored).toBeDefined();
    expect(stored!.mentions).toEqual([{ kind: "agent", key: DEV_BOT_KEY, name: "Dev Bot" }]);
    expect(stored!.author).toMatchObject({ kind: "member", name: "Ada" });

    // ...and the brain took the mention up at once with exactly one run of Dev Bot, for this message: npm start
    // gives the agents a model (the demo model unless one is set). The assignment came while Dev Bot was
    // offline, so it started none.
    const devBotRuns = async () => (await asAda.query(api.runs.listForTask, { taskId })).filter((r) => r.agentSessionKey === DEV_BOT_KEY);
    const mentioned = await until(devBotRuns, (rs) => rs.length > 0, "Dev Bot's run for the mention");
    expect(mentioned).toEqual([expect.objectContaining({ trigger: { kind: "mentioned", messageId: stored!._id } })]);

    // That run thinks (with the demo model) and Dev Bot's answer shows in both drawers, live.
    const runs = await until(
      () => asAda.query(api.runs.listForTask, { taskId }),
      (rs) => rs.some((r) => r._id === mentioned[0]._id && r.status !== "queued" && r.status !== "running"),
      "Dev Bot's run to end",
    );
    expect(runs.find((r) => r._id === mentioned[0]._id)).toMatchObject({
      agentName: "Dev Bot",
      status: "completed",
      trigger: { kind: "mentioned", messageId: stored!._id },
    });
    for (const page of [ada, grace]) {
      const reply = drawer(page).locator('[data-testid="message"][data-author-kind="agent"]').filter({ hasText: "Dev Bot" });
      await reply.first().waitFor();
    }
    expect(journey!.pageErrors).toEqual([]);
  });

  test("an @Grace message lights up Grace's bell and the card's unread dot; opening the task clears them", async () => {
    await closeDrawer(grace);
    await expect(notificationCount(grace)).resolves.toBe(0);
    await expect(card(grace, "review").getByText("Unread mention").count()).resolves.toBe(0);

    await writeWithMention(ada, "", "Gr", "Grace", "can you review the plan once Dev Bot is done?");
    const content = "@Grace can you review the plan once Dev Bot is done?";
    await (await send(ada, content)).waitFor();
    await expect(messageIn(ada, content).locator("[data-mention]").textContent()).resolves.toBe("@Grace");

    await until(() => notificationCount(grace), (n) => n === 1, "Grace's notification count to reach 1");
    await grace.getByRole("button", { name: "Notifications, 1 unread" }).waitFor();
    await card(grace, "review").getByText("Unread mention").waitFor();
    // The author is not notified of her own message.
    await expect(notificationCount(ada)).resolves.toBe(0);

    await openCard(grace, "review");
    await messageIn(grace, content).waitFor();
    await until(() => notificationCount(grace), (n) => n === 0, "Grace's notifications to be read");
    await closeDrawer(grace);
    await card(grace, "review").getByText("Unread mention").waitFor({ state: "detached" });
    await closeDrawer(ada);

    // Mentioning Grace did not wake Dev Bot again.
    const asAda = await clientFor("Ada");
    expect((await asAda.query(api.runs.listForTask, { taskId })).filter((r) => r.agentSessionKey === DEV_BOT_KEY)).toHaveLength(1);
    expect(journey!.pageErrors).toEqual([]);
  });

  test("Ada edits Dev Bot's allowed tools; both feeds show it, and only Ada can edit", async () => {
    await ada.getByTestId("roster").getByRole("button", { name: "Edit Dev Bot" }).click();
    const dialog = ada.getByRole("dialog", { name: "Edit Dev Bot" });
    const delegate = dialog.getByTestId("tool-delegate_task");
    const ask = dialog.getByTestId("tool-ask_question");
    await delegate.waitFor();
    await expect(delegate.isChecked()).resolves.toBe(false);
    await expect(ask.isChecked()).resolves.toBe(true);
    await delegate.check();
    await ask.uncheck();
    await expect(delegate.isChecked()).resolves.toBe(true);
    await expect(ask.isChecked()).resolves.toBe(false);
    // The whole tool checklist in view for the screenshot (the form scrolls inside the dialog).
    await dialog.getByTestId("tool-chat.getNew").scrollIntoViewIfNeeded();
    await ada.screenshot({ path: screenshotPath("agent-modal.png") });
    await dialog.getByRole("button", { name: "Save changes" }).click();
    await dialog.waitFor({ state: "detached" });

    const sentence = `Ada updated Dev Bot, who can now use ${DEV_BOT_TOOLS_AFTER.slice(0, -1).join(", ")} and ${DEV_BOT_TOOLS_AFTER.at(-1)}`;
    for (const page of [ada, grace]) await activity(page, sentence).waitFor();

    // Grace's view of the roster has the new tools too.
    const agents = await (await clientFor("Grace")).query(api.agents.list, { departmentId: (await departmentOf(taskId)) });
    expect(agents.find((agent) => agent.name === "Dev Bot")?.allowedTools).toEqual(DEV_BOT_TOOLS_AFTER);

    // Re-opened, the modal shows what was saved.
    await ada.getByTestId("roster").getByRole("button", { name: "Edit Dev Bot" }).click();
    await dialog.getByTestId("tool-delegate_task").waitFor();
    await expect(dialog.getByTestId("tool-delegate_task").isChecked()).resolves.toBe(true);
    await expect(dialog.getByTestId("tool-ask_question").isChecked()).resolves.toBe(false);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });

    // Grace is not an admin: no Edit or New agent buttons, and the roster is otherwise the same.
    const roster = grace.getByTestId("roster");
    await expect(roster.getByTestId("roster-agent").count()).resolves.toBe(4);
    await expect(roster.getByRole("button").count()).resolves.toBe(0);
    await expect(grace.evaluate(() => (window as { __noReload?: boolean }).__noReload)).resolves.toBe(true);
    await expect(ada.evaluate(() => (window as { __noReload?: boolean }).__noReload)).resolves.toBe(true);
    expect(journey!.pageErrors).toEqual([]);
  });
});

async function departmentOf(taskId: Id<"tasks">): Promise<Id<"departments">> {
  const task = await (await clientFor("Ada")).query(api.tasks.get, { taskId });
  return task.departmentId;
}
