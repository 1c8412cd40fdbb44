/**
 * The brain, end to end in real browsers against the real `npm start` stack,
 * whose agents think with the built-in demo model (offline, rule-based; see
 * tools/demo-model/rules.ts). Ada (first to sign in, so admin) and Grace, each
 * in their own browser context at 1280×800:
 *
 *   Ada creates “Landing page” and asks @Jarvis to split it between Dev Bot and
 *   Writer → her drawer shows Jarvis's run (thinking → completed) with its two
 *   delegations, and his reply → Grace's board gets “Hero copy” (Dev Bot) and
 *   “Signup form” (Writer), badged Delegated, without a reload → in “Hero copy”
 *   Jarvis's instruction opens the thread, Dev Bot's run (woken by the
 *   assignment) posts its deliverable there and moves the card to Review, as
 *   Writer does on “Signup form” → Ada's “Landing page” thread says both are
 *   ready for review and Jarvis acknowledges them → every agent is Idle again.
 *   Screenshots: tests/output/brain-drawer.png, brain-board.png.
 *
 * The demo model is npm start's own, behind a gate on 127.0.0.1 that can
 * hold Jarvis's next model call: the drawer is seen showing his run
 * thinking before he answers, however fast the machine.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { DEMO_MODEL_ID, DEMO_MODEL_LABEL, startDemoModel } from "../../tools/demo-model/server";
import { isJarvis } from "../backend/scriptedModel";
import { composer, drawer, screenshotPath, send, startJourney, until, writeWithMention, type Journey } from "./journey";

const PASSWORD = "brain-test-password";
/** Bound on waiting for an agent's run to end (the demo model answers in milliseconds; the whole run takes about a second). */
const RUN_MS = 30_000;

const TITLE = "Landing page";
const DESCRIPTION = "Hero section with copy, and a signup form.";
// Who takes what is said in the request (the demo lead pairs by what it says, not by position).
const REQUEST = "split the landing page between Dev Bot and Writer: the hero copy for Dev Bot and the signup form for Writer";
const MODEL_LABEL = "Model: demo model (offline, rule-based)";

/** What the demo model makes of REQUEST (rules.ts, planSplit): one task per person, titles from the parts. */
const DELEGATED = [
  {
    title: "Hero copy",
    assignee: "Dev Bot",
    initials: "DB",
    instruction: "@Dev Bot Please take the hero copy for the landing page and post your progress here.",
  },
  {
    title: "Signup form",
    assignee: "Writer",
    initials: "WR",
    instruction: "@Writer Please take the signup form for the landing page and post your progress here.",
  },
] as const;
const AGENTS_AT_WORK = ["Jarvis", "Dev Bot", "Writer"];

/** The run statuses in the order a run goes through them. */
const RUN_ORDER = ["queued", "running", "completed"];

let journey: Journey | undefined;

/** Jarvis's next model call, held at the gate: `reached` once it arrived, answered once released. */
interface HeldCall {
  reached: Promise<void>;
  release(): void;
}

/**
 * The demo model behind a gate that passes every call through, except the
 * one `holdJarvis` holds: Jarvis's next, until the test releases it.
 */
async function startGatedDemoModel() {
  const demo = await startDemoModel();
  let holding: { reached: () => void; released: Promise<void> } | null = null;
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = req.method === "POST" ? await readBody(req) : undefined;
      if (holding !== null && body !== undefined && isJarvis((JSON.parse(body) as { messages: Parameters<typeof isJarvis>[0] }).messages)) {
        const held = holding;
        holding = null;
        held.reached();
        await held.released;
      }
      const upstream = await fetch(`${demo.baseURL}${(req.url ?? "").replace(/^\/v1/, "")}`, { method: req.method, headers: { "content-type": "application/json" }, body });
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
      // Streamed on as it comes (the brain reads the reply as server-sent events).
      const reader = upstream.body?.getReader();
      for (let piece = await reader?.read(); piece !== undefined && !piece.done; piece = await reader?.read()) res.write(piece.value);
      res.end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** npm start's settings for its demo model, pointing at the gate. */
    env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: "demo", MAESTRO_DEFAULT_MODEL: DEMO_MODEL_ID, MAESTRO_MODEL_LABEL: DEMO_MODEL_LABEL },
    holdJarvis(): HeldCall {
      let reached!: () => void;
      let release!: () => void;
      const call = { reached: new Promise<void>((resolve) => (reached = resolve)), released: new Promise<void>((resolve) => (release = resolve)) };
      holding = { reached, released: call.released };
      return { reached: call.reached, release };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await demo.close();
    },
  };
}

let model: Awaited<ReturnType<typeof startGatedDemoModel>> | undefined;

const cardById = (page: Page, taskId: string) => page.locator(`[data-testid="task-card"][data-task-id="${taskId}"]`);
const cardIn = (page: Page, column: string, taskId: string) =>
  page.getByTestId(`column-${column}`).locator(`[data-testid="task-card"][data-task-id="${taskId}"]`);
const runs = (page: Page) => drawer(page).getByTestId("run");
const agentMessages = (page: Page, name: string) =>
  drawer(page).locator('[data-testid="message"][data-author-kind="agent"]').filter({ has: page.getByText(name, { exact: true }) });
const rosterStatus = (page: Page, name: string) =>
  page.getByTestId("roster-agent").filter({ has: page.getByText(name, { exact: true }) }).getByTestId("agent-status");

/** A message's text as written (its Markdown paragraph), without the avatar, name, badge and time around it. */
const messageText = (message: Locator) => message.locator("p").first().textContent();

/**
 * Records, in the page, every state the runs in the drawer are rendered in
 * ("status|headline" per run, newest first), after each DOM change. A run that
 * thinks for only milliseconds may never be painted as running; this shows
 * what was.
 */
async function recordRunStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: string[][] = [];
    const read = () =>
      Array.from(document.querySelectorAll('[data-testid="task-drawer"] [data-testid="run"]')).map(
        (run) => `${run.getAttribute("data-run-status")}|${run.querySelector('[data-testid="run-headline"]')?.textContent ?? ""}`,
      );
    const observer = new MutationObserver(() => {
      const now = read();
      if (JSON.stringify(now) !== JSON.stringify(seen.at(-1))) seen.push(now);
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    Object.assign(window, { __runStates: seen });
  });
}

async function recordedRunStates(page: Page): Promise<string[][]> {
  return await page.evaluate(() => (window as unknown as { __runStates: string[][] }).__runStates);
}

/** Records every status each roster agent is rendered with (Active may last only milliseconds). */
async function recordRosterStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: Record<string, string[]> = {};
    const read = () => {
      for (const row of document.querySelectorAll('[data-testid="roster-agent"]')) {
        const name = row.querySelector(".truncate")?.textContent ?? "?";
        const status = row.querySelector('[data-testid="agent-status"]')?.textContent ?? "?";
        const list = (seen[name] ??= []);
        if (list.at(-1) !== status) list.push(status);
      }
    };
    read();
    new MutationObserver(read).observe(document.body, { subtree: true, childList: true, characterData: true });
    Object.assign(window, { __rosterStates: seen });
  });
}

async function recordedRosterStates(page: Page): Promise<Record<string, string[]>> {
  return await page.evaluate(() => (window as unknown as { __rosterStates: Record<string, string[]> }).__rosterStates);
}

async function noReload(page: Page): Promise<boolean | undefined> {
  return await page.evaluate(() => (window as { __noReload?: boolean }).__noReload);
}

beforeAll(async () => {
  model = await startGatedDemoModel();
  journey = await startJourney({ password: PASSWORD, env: model.env });
});

afterAll(async () => {
  await journey?.close();
  await model?.close();
});

describe("Jarvis splits a task between two agents, live in two browsers (demo model)", () => {
  let ada: Page;
  let grace: Page;
  let landingId: Id<"tasks">;
  let askId: Id<"messages">;
  /** The delegated tasks' ids, in DELEGATED order. */
  const delegatedIds: Id<"tasks">[] = [];

  test("Ada and Grace sign in; the header names the demo model", async () => {
    ada = await journey!.newPage({ who: "Ada" });
    await journey!.signIn(ada, "Ada");
    // Ada's membership is settled (admin) before Grace's is made.
    await ada.getByTestId("roster").getByRole("button", { name: "New agent" }).waitFor();
    grace = await journey!.newPage({ who: "Grace" });
    await journey!.signIn(grace, "Grace");
    await expect(grace.getByTestId("roster").getByRole("button", { name: "New agent" }).count()).resolves.toBe(0);

    for (const page of [ada, grace]) {
      const label = page.getByTestId("model-label");
      await label.waitFor({ state: "attached" }); // shown from 1600 px; this page is 1280
      await expect(label.textContent()).resolves.toBe(MODEL_LABEL);
      await expect(page.getByTestId("model-banner").count()).resolves.toBe(0);
      for (const name of AGENTS_AT_WORK) await expect(rosterStatus(page, name).textContent(), name).resolves.toBe("Idle");
      // A marker that a reload would wipe: everything below must arrive live.
      await page.evaluate(() => Object.assign(window, { __noReload: true }));
    }
    expect(journey!.pageErrors).toEqual([]);
  });

  test("Ada creates “Landing page” in the New task dialog and opens it: no agent activity yet", async () => {
    await ada.getByRole("button", { name: "New task" }).click();
    const dialog = ada.getByRole("dialog", { name: "New task" });
    await dialog.waitFor();
    await dialog.getByLabel("Title").fill(TITLE);
    await dialog.getByLabel("Description").fill(DESCRIPTION);
    await dialog.getByRole("button", { name: "Create task" }).click();
    await dialog.waitFor({ state: "detached" });

    // No assignee: it lands in the Inbox. (The seed's “Landing page for the launch” is there too: match the title exactly.)
    const created = ada.getByTestId("column-inbox").getByTestId("task-card").filter({ has: ada.getByRole("button", { name: TITLE, exact: true }) });
    await created.waitFor();
    landingId = (await created.getAttribute("data-task-id")) as Id<"tasks">;
    expect(landingId).toBeTruthy();
    await cardIn(grace, "inbox", landingId).waitFor();

    await created.getByRole("button", { name: TITLE, exact: true }).click();
    await drawer(ada).getByRole("heading", { name: TITLE, exact: true }).waitFor();
    await composer(ada).waitFor();
    await expect(drawer(ada).getByRole("region", { name: "Agent activity" }).count()).resolves.toBe(0);
    await expect(runs(ada).count()).resolves.toBe(0);
    expect(journey!.pageErrors).toEqual([]);
  });

  test("Ada asks @Jarvis to split it; her drawer shows his run thinking, then completed with two delegations, and his reply", async () => {
    await recordRunStates(ada);
    await recordRosterStates(grace);
    // His first model call waits at the gate until the drawer has shown him thinking: a model that answers
    // in a millisecond could end the run before the drawer is painted with it running.
    const held = model!.holdJarvis();
    await writeWithMention(ada, "", "Ja", "Jarvis", REQUEST);
    const content = `@Jarvis ${REQUEST}`;
    const sent = await send(ada, content);
    await sent.waitFor();
    await expect(sent.getAttribute("data-author-kind")).resolves.toBe("member");
    await expect(sent.locator("[data-mention]").textContent()).resolves.toBe("@Jarvis");

    // The server resolved the mention to Jarvis.
    const asAda = await journey!.clientFor("Ada");
    const thread = await asAda.query(api.messages.list, { taskId: landingId, paginationOpts: { numItems: 10, cursor: null } });
    const stored = thread.page.find((m) => m.content === content);
    expect(stored?.mentions).toEqual([expect.objectContaining({ kind: "agent", name: "Jarvis" })]);
    askId = stored!._id;

    // Jarvis's run appears in the drawer's Agent activity, live, and completes.
    const activity = drawer(ada).getByRole("region", { name: "Agent activity" });
    await activity.waitFor();
    // The run for Ada's mention (the delegations' results wake Jarvis again later, in runs of their own).
    const run = runs(ada).filter({ hasText: "after a mention" });
    await run.waitFor();
    await held.reached;
    try {
      await activity.locator('[data-testid="run"][data-run-status="running"]').filter({ hasText: "Jarvis is thinking… after a mention" }).waitFor();
    } finally {
      held.release();
    }
    await activity.locator('[data-testid="run"][data-run-status="completed"]').filter({ hasText: "after a mention" }).waitFor({ timeout: RUN_MS });
    await expect(run.count()).resolves.toBe(1);
    await expect(run.getAttribute("data-run-status")).resolves.toBe("completed");
    await expect(run.getByTestId("run-headline").textContent()).resolves.toBe("Jarvis replied after a mention");
    await expect(run.getByText("Completed", { exact: true }).count()).resolves.toBe(1);
    // The run's details name the model it thought with, and the two rounds (delegate, then sum up).
    await expect(run.getByText(MODEL_LABEL.replace("Model: ", ""), { exact: true }).count()).resolves.toBe(1);
    await expect(run.getByText("2 model calls", { exact: true }).count()).resolves.toBe(1);

    // Two tool calls, both delegations that went through, worded for people.
    // From the run's event stream, a subscription of its own: the calls may arrive just after the run's status.
    const calls = run.getByRole("list", { name: "Tool calls" }).getByRole("listitem");
    await until(() => calls.count(), (n) => n === 2, "the run's two tool calls");
    for (const [index, { title, assignee }] of DELEGATED.entries()) {
      const call = calls.nth(index);
      await expect(call.getAttribute("data-outcome")).resolves.toBe("ok");
      await expect(call.textContent()).resolves.toBe(`✓Done: Delegated “${title}” to ${assignee}`);
    }

    // What the drawer showed along the way: "Jarvis is thinking…" while the run ran (his first model call was held at the
    // gate until it was shown), then "replied", the run only ever moving forward (queued → running → completed).
    const states = (await recordedRunStates(ada)).flatMap((s) => s.filter((state) => state.endsWith("after a mention")).slice(0, 1));
    expect(states.length).toBeGreaterThan(0);
    const order = states.map((s) => RUN_ORDER.indexOf(s.split("|")[0]));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(states).toContain("running|Jarvis is thinking… after a mention");
    expect(states.at(-1)).toBe("completed|Jarvis replied after a mention");
    for (const state of states) {
      const [status, headline] = state.split("|");
      if (status === "running") expect(headline).toBe("Jarvis is thinking… after a mention");
      if (status === "queued") expect(headline).toBe("Jarvis is queued… after a mention");
    }
    console.info(`Jarvis's run as Ada's drawer rendered it: ${states.join(" → ")}`);

    // After Ada's message, in the thread: his words said with his two calls (posted once, before them), then his reply.
    const said = agentMessages(ada, "Jarvis");
    await until(() => said.count(), (n) => n >= 2, "Jarvis's words with his calls, then his reply");
    await expect(messageText(said.nth(0))).resolves.toMatch(/^On it: splitting .+ between Dev Bot and Writer\.$/);
    await expect(messageText(said.nth(1))).resolves.toBe(`Delegated “${DELEGATED[0].title}” to ${DELEGATED[0].assignee} and “${DELEGATED[1].title}” to ${DELEGATED[1].assignee}.`);

    // The backend agrees: one run, Jarvis's, for Ada's message, two delegations (any other is for a delegation's result).
    const landingRuns = await asAda.query(api.runs.listForTask, { taskId: landingId });
    const [record, ...others] = landingRuns.filter((r) => r.trigger.kind === "mentioned");
    expect(others).toEqual([]);
    expect(landingRuns.every((r) => r.agentName === "Jarvis" && (r.trigger.kind === "mentioned" || r.trigger.kind === "delegation_result"))).toBe(true);
    expect(record).toMatchObject({ agentName: "Jarvis", status: "completed", reason: "replied", trigger: { kind: "mentioned", messageId: askId } });
    expect(record.toolCalls.map((c) => [c.name, c.outcome])).toEqual([
      ["delegate_task", "ok"],
      ["delegate_task", "ok"],
    ]);
    // Through native tool calls: the demo model answered with tool_calls, whose ids the run's events keep.
    const callEvents = (await asAda.query(api.runEvents.listForRun, { runId: record._id })).flatMap((e) => (e.payload.type === "tool_call" ? [e.payload] : []));
    expect(callEvents.map((e) => [e.name, e.callId])).toEqual([
      ["delegate_task", expect.stringMatching(/^call_/)],
      ["delegate_task", expect.stringMatching(/^call_/)],
    ]);

    // The drawer scrolls inside itself: Agent activity at the top, the thread under it, for the screenshot.
    await activity.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await ada.screenshot({ path: screenshotPath("brain-drawer.png") });
    expect(journey!.pageErrors).toEqual([]);
  });

  test("Grace's board gets “Hero copy” and “Signup form”, live: badged Delegated, assigned to DB and WR", async () => {
    for (const { title, assignee, initials } of DELEGATED) {
      const card = grace.getByTestId("task-card").filter({ has: grace.getByRole("button", { name: title, exact: true }) });
      await card.waitFor();
      await expect(card.count(), title).resolves.toBe(1);
      const id = (await card.getAttribute("data-task-id")) as Id<"tasks">;
      expect(id).toBeTruthy();
      delegatedIds.push(id);

      const badge = card.getByTitle("Delegated by Jarvis");
      await expect(badge.textContent()).resolves.toBe("Delegated");
      const avatars = card.getByRole("img", { name: /^Assigned to / });
      await expect(avatars.count()).resolves.toBe(1);
      await expect(card.getByRole("img", { name: `Assigned to ${assignee}` }).textContent()).resolves.toBe(initials);

      // Ada's board has the same card (behind her drawer).
      await cardById(ada, id).waitFor();
    }
    // 5 seeded + Landing page + the two delegated tasks; Landing page itself stays in the Inbox, undelegated.
    await expect(grace.getByTestId("task-card").count()).resolves.toBe(8);
    await expect(cardIn(grace, "inbox", landingId).getByTitle(/^Delegated by/).count()).resolves.toBe(0);
    await expect(noReload(grace)).resolves.toBe(true);

    // Each assignee carries its task through at once: a deliverable in its thread, and the card to Review; the
    // screenshot waits for that, so it is stable.
    for (const id of delegatedIds) await cardIn(grace, "review", id).waitFor({ timeout: RUN_MS });
    await grace.screenshot({ path: screenshotPath("brain-board.png") });
    expect(journey!.pageErrors).toEqual([]);
  });

  test("Grace opens “Hero copy”: Jarvis's instruction to @Dev Bot opens the thread, Dev Bot's run posts its deliverable, and the card is in Review on both boards", async () => {
    const [hero] = DELEGATED;
    const heroId = delegatedIds[0];
    await cardById(grace, heroId).getByRole("button", { name: hero.title, exact: true }).click();
    await drawer(grace).getByRole("heading", { name: hero.title, exact: true }).waitFor();
    await composer(grace).waitFor();

    // The first message is Jarvis's instruction, addressed to Dev Bot.
    const first = drawer(grace).getByTestId("message").first();
    await first.waitFor();
    await expect(first.getAttribute("data-author-kind")).resolves.toBe("agent");
    await expect(first.getByText("Jarvis", { exact: true }).count()).resolves.toBe(1);
    const text = await messageText(first);
    expect(text?.startsWith("@Dev Bot")).toBe(true);
    expect(text).toBe(hero.instruction);
    await expect(first.locator("[data-mention]").first().textContent()).resolves.toBe("@Dev Bot");
    // The details name who delegated it.
    await expect(drawer(grace).getByText("Delegated by", { exact: true }).count()).resolves.toBe(1);

    // Agent activity: Dev Bot's run, woken by the assignment (Jarvis's @mention only notifies), completes.
    const run = runs(grace).filter({ hasText: "Dev Bot" });
    await run.waitFor();
    await drawer(grace).locator('[data-testid="run"][data-run-status="completed"]').waitFor({ timeout: RUN_MS });
    await expect(runs(grace).count()).resolves.toBe(1);
    await expect(run.getByTestId("run-headline").textContent()).resolves.toBe("Dev Bot replied after being assigned");
    // From the run's event stream, a subscription of its own: the calls may arrive just after the run's status.
    const calls = run.getByRole("list", { name: "Tool calls" }).getByRole("listitem");
    await until(() => calls.count(), (n) => n === 2, "the run's two tool calls");
    // In progress first, then the work (his reply's words) and Review (issue 42: a demo run you can watch).
    await expect(calls.nth(0).textContent()).resolves.toBe("✓Done: Moved the task from Assigned to In progress");
    await expect(calls.nth(1).textContent()).resolves.toBe("✓Done: Moved the task from In progress to Review");
    // The work is in the thread, from Dev Bot, for Jarvis to review: a draft, from the template for copy.
    const deliverable = agentMessages(grace, "Dev Bot").filter({ hasText: "Draft for “Hero copy”" });
    await deliverable.waitFor();
    await expect(messageText(deliverable)).resolves.toMatch(/^Draft for “Hero copy”:[\s\S]*Jarvis, it is ready for your review/);

    const asGrace = await journey!.clientFor("Grace");
    const heroRuns = await asGrace.query(api.runs.listForTask, { taskId: heroId });
    expect(heroRuns).toEqual([expect.objectContaining({ agentName: "Dev Bot", status: "completed", trigger: { kind: "assigned" } })]);
    // Writer's run on “Signup form” went the same way.
    const formRuns = await asGrace.query(api.runs.listForTask, { taskId: delegatedIds[1] });
    expect(formRuns).toEqual([expect.objectContaining({ agentName: "Writer", status: "completed", trigger: { kind: "assigned" } })]);

    // In Review on both boards, and in Grace's drawer header.
    for (const page of [grace, ada]) {
      await cardIn(page, "review", heroId).waitFor();
      await until(() => cardIn(page, "assigned", heroId).count(), (n) => n === 0, "“Hero copy” to leave Assigned");
    }
    await expect(drawer(grace).locator("header").getByText("Review", { exact: true }).count()).resolves.toBe(1);
    expect(journey!.pageErrors).toEqual([]);
  });

  test("Ada's “Landing page” thread says both delegated tasks are ready for review on their one line each, and the parent moves to Review", async () => {
    for (const { title, assignee } of DELEGATED) {
      await drawer(ada).getByText(`Jarvis delegated “${title}” to ${assignee}: ready for review.`, { exact: true }).waitFor({ timeout: RUN_MS });
    }
    const asAda = await journey!.clientFor("Ada");
    await until(
      async () => (await asAda.query(api.runs.listForTask, { taskId: landingId })).filter((r) => r.trigger.kind === "delegation_result"),
      (results) => results.length > 0 && results.every((r) => r.status === "completed"),
      "Jarvis's runs for the results to complete",
      RUN_MS,
    );
    // The lines and the parent's column say it: Jarvis adds nothing, and the parent is in Review, his.
    await expect(agentMessages(ada, "Jarvis").filter({ hasText: "Noted:" }).count()).resolves.toBe(0);
    await until(async () => (await asAda.query(api.tasks.get, { taskId: landingId })).status, (status) => status === "review", "the parent to reach Review");
    // Results inform the lead: nothing is delegated again.
    await expect(grace.getByTestId("task-card").count()).resolves.toBe(8);
    expect(journey!.pageErrors).toEqual([]);
  });

  test("Jarvis, Dev Bot and Writer are back to Idle in both rosters; nothing reloaded", async () => {
    for (const page of [grace, ada]) {
      for (const name of AGENTS_AT_WORK) {
        await until(() => rosterStatus(page, name).textContent(), (s) => s === "Idle", `${name} to be Idle again`);
      }
      await expect(noReload(page)).resolves.toBe(true);
    }
    // Active is shown while an agent runs, which may be too short to paint; report what Grace's roster showed.
    const seen = await recordedRosterStates(grace);
    for (const name of AGENTS_AT_WORK) expect(seen[name]?.at(-1), name).toBe("Idle");
    console.info(`Roster statuses Grace saw: ${AGENTS_AT_WORK.map((name) => `${name} ${seen[name]?.join(" → ")}`).join("; ")}`);
    expect(journey!.pageErrors).toEqual([]);
  });
});
