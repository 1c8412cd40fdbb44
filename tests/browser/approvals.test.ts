/**
 * Approvals and Stop in real browsers against `npm start`'s stack, whose
 * agents think with the demo model (tools/demo-model/rules.ts). Ada (owner)
 * and Grace (member), each in their own browser context:
 *
 *   Ada mentions @Jarvis asking for an urgent delegation → Jarvis's reply
 *   streams into the run and the delegation waits on an approval card (his
 *   delegate_task policy asks a person when the priority is high) → Grace,
 *   in her browser, approves it → the subtask appears on both boards and
 *   under its parent, and Ada's card says Grace approved it → Ada asks Jarvis
 *   to take his time, watches the reply stream in, and stops it → both see
 *   the run aborted. Screenshot: tests/output/approvals-drawer.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { closeDrawer, cutTexts, drawer, screenshotPath, send, startJourneyOfTwo, until, writeWithMention, type Journey } from "./journey";

/** Bound on waiting for an agent's run (the demo model answers in milliseconds; a slow reply takes about 20 s). */
const RUN_MS = 30_000;
const TITLE = "Launch week";
const REQUEST = "delegate the launch tagline to Writer, urgent";
const SUBTASK = "Launch tagline";
const SLOW = "take your time and think it over slowly";

let journey: Journey;
let ada: Page;
let grace: Page;
let taskId: Id<"tasks">;

const cardOf = (page: Page, id: string) => page.locator(`[data-testid="task-card"][data-task-id="${id}"]`);
const boardCard = (page: Page, title: string) => page.getByTestId("task-card").filter({ has: page.getByRole("button", { name: title, exact: true }) });
const approvalCard = (page: Page) => drawer(page).getByTestId("approval-card");
const runIn = (page: Page, status: string) => drawer(page).locator(`[data-testid="run"][data-run-status="${status}"]`);

async function openTask(page: Page, id: string) {
  await cardOf(page, id).getByRole("button", { name: TITLE, exact: true }).click();
  await drawer(page).getByRole("heading", { name: TITLE, exact: true }).waitFor();
}

beforeAll(async () => {
  ({ journey, ada, grace } = await startJourneyOfTwo("approvals-test-password"));
});

afterAll(async () => {
  await journey?.close();
});

describe("approve a high-priority delegation in a second browser, then stop a long run", () => {
  test("Ada mentions Jarvis; his delegation waits on an approval card with agent, tool and arguments", async () => {
    const asAda = await journey.clientFor("Ada");
    const [department] = await asAda.query(api.departments.listMine, {});
    taskId = await asAda.mutation(api.tasks.create, { departmentId: department._id, title: TITLE, description: "Everything for the launch.", assigneeSessionKeys: [] });
    for (const page of [ada, grace]) await cardOf(page, taskId).waitFor();
    await openTask(ada, taskId);
    await openTask(grace, taskId);

    await writeWithMention(ada, "", "Ja", "Jarvis", REQUEST);
    await (await send(ada, `@Jarvis ${REQUEST}`)).waitFor();

    // The reply streamed into the run's events before the run paused.
    const card = approvalCard(ada);
    await card.waitFor({ timeout: RUN_MS });
    await until(() => card.getAttribute("data-state"), (state) => state === "pending", "a pending approval");
    const text = (await card.textContent()) ?? "";
    expect(text).toContain(`Jarvis asks to delegate “${SUBTASK}” to Writer`);
    expect(text).toContain(`title: ${SUBTASK}`);
    expect(text).toContain("priority: high");
    expect(text).toMatch(/expires in \d+ h/);
    await runIn(ada, "waiting").waitFor();
    const runs = await asAda.query(api.runs.listForTask, { taskId });
    const events = await asAda.query(api.runEvents.listForRun, { runId: runs[0]._id });
    const streamed = events.filter((e) => e.payload.type === "message_update").map((e) => (e.payload as { delta: string }).delta).join("");
    expect(streamed).toContain("On it: delegating “Launch tagline” to Writer.");
    expect(events.map((e) => e.payload.type)).toContain("approval_requested");
    // Nothing was delegated yet.
    await expect(boardCard(ada, SUBTASK).count()).resolves.toBe(0);
    expect(journey.pageErrors).toEqual([]);
  });

  test("Grace, with the task closed, sees the approval from the board, the roster and the bell, which opens the task beside its pending card", async () => {
    await closeDrawer(grace);
    const waitingBadge = cardOf(grace, taskId).getByTestId("card-waiting");
    await waitingBadge.waitFor();
    expect(await waitingBadge.textContent()).toBe("Waits for approval");
    expect(await waitingBadge.locator("[title]").getAttribute("title")).toBe(`Jarvis asks to delegate “${SUBTASK}” to Writer`);
    const jarvis = grace.getByTestId("roster-agent").filter({ has: grace.getByTestId("roster-agent-name").getByText("Jarvis", { exact: true }) });
    expect(await jarvis.getByTestId("agent-waiting").textContent()).toBe("Waits for approval");
    // At 1280 beside the 288 px panel, the wait does not cut his role.
    expect(await cutTexts(jarvis.getByTestId("roster-agent-role"))).toEqual([]);
    const bell = grace.getByRole("button", { name: /^Notifications, \d+ unread \(1 waiting for a person\)/ });
    await bell.click();
    const item = grace.getByRole("region", { name: "Waiting for a person" }).getByTestId("waiting-item");
    expect(await item.textContent()).toMatch(/Jarvis asks to delegate “Launch tagline” to Writer.*Waits for approval on Launch week/);
    await grace.screenshot({ path: screenshotPath("approvals-bell.png") });
    await item.click();
    await drawer(grace).getByRole("heading", { name: TITLE, exact: true }).waitFor();
    // The pending card sits beside the composer, not lost in the thread.
    await drawer(grace).getByTestId("pending-cards").getByTestId("approval-card").waitFor();
    expect(journey.pageErrors).toEqual([]);
  });

  test("Grace approves in her browser: the subtask appears on both boards and under its parent; Ada's card says who approved", async () => {
    const card = approvalCard(grace);
    await card.waitFor();
    await card.getByRole("button", { name: "Approve" }).click();
    for (const page of [grace, ada]) {
      await boardCard(page, SUBTASK).waitFor({ timeout: RUN_MS });
      await drawer(page).getByRole("region", { name: "Subtasks" }).getByRole("link", { name: SUBTASK }).waitFor();
    }
    await until(() => approvalCard(ada).getAttribute("data-state"), (state) => state === "approved", "Ada's card to show the approval");
    expect(await approvalCard(ada).textContent()).toContain("by Grace");
    await expect(approvalCard(ada).getByRole("button").count()).resolves.toBe(0);
    await runIn(ada, "completed").first().waitFor({ timeout: RUN_MS });
    expect(await boardCard(ada, SUBTASK).count()).toBe(1);
    // Decided, it no longer waits: the board's badge is gone and the card folds away with the decided ones.
    await cardOf(grace, taskId).getByTestId("card-waiting").waitFor({ state: "detached" });
    await drawer(ada).getByTestId("decided-cards").getByTestId("approval-card").waitFor({ state: "attached" });
    expect(journey.pageErrors).toEqual([]);
  });

  test("Ada watches a long reply stream in and stops it: both browsers show the run aborted", async () => {
    await writeWithMention(ada, "", "Ja", "Jarvis", SLOW);
    await (await send(ada, `@Jarvis ${SLOW}`)).waitFor();
    const typing = drawer(ada).getByTestId("typing");
    const first = await until(() => typing.textContent().catch(() => ""), (text) => (text ?? "").includes("Taking my time"), "the reply to start streaming", RUN_MS);
    await until(() => typing.textContent().catch(() => ""), (text) => (text ?? "").length > (first ?? "").length, "more of the reply to stream in", RUN_MS);
    await ada.screenshot({ path: screenshotPath("approvals-drawer.png") });
    // Stop is beside the composer, with the streaming reply.
    await drawer(ada).getByTestId("run-now").getByRole("button", { name: "Stop" }).click();
    for (const page of [ada, grace]) await runIn(page, "aborted").waitFor({ timeout: RUN_MS });
    await typing.waitFor({ state: "detached" });
    // Nothing of the stopped reply is posted.
    const asAda = await journey.clientFor("Ada");
    const thread = await asAda.query(api.messages.list, { taskId, paginationOpts: { numItems: 50, cursor: null } });
    expect(thread.page.some((m) => m.content.includes("Taking my time"))).toBe(false);
    expect(journey.pageErrors).toEqual([]);
  });
});
