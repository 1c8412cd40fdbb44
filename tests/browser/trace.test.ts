/**
 * A delegation's trace (issue 42, item 8) in a real browser against `npm
 * start`'s stack, in both themes at 1440×900, 1280×800 and 390×844, with axe:
 * Ada (the owner) opens a delegated card, follows its "Trace of this
 * delegation" link to `/d/product/trace/a2a:<card>`, where the delegation's
 * steps show oldest first (the a2a.delegate envelope, Writer's run, the
 * status update); the address survives a reload; an unknown id says not
 * found; the event log narrows to the id through its "Correlation id" field,
 * and each event there links to its trace. A viewer is told the trace is the
 * admins'.
 *
 * Screenshots: tests/output/trace-<view>-<light|dark>-<width>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { auditLooks, drawer, LARGE, showLook, startJourney, until, type Journey } from "./journey";

/** Bound on waiting for the squad's runs (the demo answers in test mode quickly; the machine may be busy). */
const RUN_MS = 60_000;

let journey: Journey;
let ada: Page;
let subtaskId: Id<"tasks">;
let correlationId: string;
let traced: { events: number; runs: number };

const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;
const traceAddress = () => `/d/product/trace/${encodeURIComponent(correlationId)}`;

/** The trace's rows' types, as the page shows them. */
async function stepTypes(page: Page): Promise<string[]> {
  const steps = page.getByTestId("trace-steps").getByTestId("trace-step");
  await steps.first().waitFor();
  return await steps.evaluateAll((rows) => rows.map((row) => row.getAttribute("data-step-type") ?? ""));
}

beforeAll(async () => {
  journey = await startJourney({ password: "trace-test-password" });
  ada = await journey.newPage({ who: "Ada", viewport: LARGE });
  await journey.signIn(ada, "Ada");
  const client = await journey.clientFor("Ada");
  const [department] = await client.query(api.departments.listMine, {});
  const parentId = await client.mutation(api.tasks.create, { departmentId: department._id, title: "Launch week", description: "Everything for the launch.", assigneeSessionKeys: [] });
  await client.mutation(api.messages.create, { taskId: parentId, content: "@Jarvis delegate the launch press kit to Writer" });
  const { subtasks } = await until(() => client.query(api.tasks.listSubtasks, { taskId: parentId }), (list) => list.subtasks.length > 0, "the delegated subtask", RUN_MS);
  subtaskId = subtasks[0]._id;
  correlationId = `a2a:${subtaskId}`;
  // Writer works on the card and reports it ready for review: the trace then has a run and a status update.
  const trace = await until(
    () => client.query(api.events.trace, { departmentId: department._id, correlationId }),
    (t) => t.runs.some((run) => run.status === "completed") && t.events.some((e) => e.type === "a2a.status_update" && e.data.status === "review"),
    "Writer's run and its status update",
    RUN_MS,
  );
  traced = { events: trace.events.length, runs: trace.runs.length };
}, 180_000);

afterAll(async () => {
  await journey?.close();
});

describe("a delegation's trace", () => {
  test("a delegated card's Trace link opens the steps in time order, and the address survives a reload, at every size and in both themes", async () => {
    const failures = await auditLooks("trace-view", async (look) => {
      await showLook(ada, look);
      await ada.goto(appAt(`/d/product/tasks/${subtaskId}`));
      await drawer(ada).getByRole("link", { name: "Trace of this delegation" }).click();
      await ada.waitForURL((url) => url.pathname === traceAddress());
      const types = await stepTypes(ada);
      expect(types[0]).toBe("a2a.delegate");
      expect(types).toContain("run");
      expect(types).toContain("a2a.status_update");
      expect(types.length).toBe(traced.events + traced.runs);
      const first = ada.getByTestId("trace-step").first();
      await expect(first.textContent()).resolves.toMatch(/Jarvis delegated “.+” to Writer/);
      // The steps link to the card and the run.
      await expect(first.getByRole("link", { name: /^Card “/ }).getAttribute("href")).resolves.toBe(`/d/product/tasks/${subtaskId}`);
      await expect(ada.getByTestId("trace-step").filter({ hasText: "Writer worked on the card" }).getByRole("link", { name: "Open the run" }).count()).resolves.toBe(1);
      await ada.reload();
      await expect(stepTypes(ada)).resolves.toEqual(types);
      return ada;
    });
    expect(failures).toEqual({});
    // A step's run link leads to the run's timeline.
    await showLook(ada, { colorScheme: "light", size: LARGE });
    await ada.getByRole("link", { name: "Open the run" }).first().click();
    await ada.getByRole("region", { name: "Run" }).getByRole("heading", { name: /Writer on/ }).waitFor();
    expect(journey.pageErrors).toEqual([]);
  });

  test("an unknown correlation id says not found, with a way back to the event log", async () => {
    await showLook(ada, { colorScheme: "light", size: LARGE });
    await ada.goto(appAt("/d/product/trace/a2a%3Anobody"));
    await expect(ada.getByTestId("trace-not-found").textContent()).resolves.toContain("Trace not found");
    await ada.getByTestId("trace-not-found").getByRole("link", { name: "Back to the event log" }).click();
    await ada.getByTestId("event-log").waitFor();
    expect(journey.pageErrors).toEqual([]);
  });

  test("the event log narrows to the correlation id, and each of its events links to the trace, at every size and in both themes", async () => {
    const failures = await auditLooks("trace-event-log", async (look) => {
      await showLook(ada, look);
      await ada.goto(appAt("/d/product/events"));
      await ada.getByTestId("event-log").waitFor();
      await ada.getByLabel("Correlation id").fill(correlationId);
      const rows = ada.getByTestId("event-row");
      const count = await until(() => rows.count(), (n) => n === traced.events, `the log narrowed to ${traced.events} events`);
      await expect(rows.getByRole("link", { name: `Trace of ${correlationId}` }).count()).resolves.toBe(count);
      return ada;
    });
    expect(failures).toEqual({});
    // A row's Trace link opens the trace; its "These events in the event log" comes back narrowed.
    await showLook(ada, { colorScheme: "light", size: LARGE });
    await ada.getByRole("link", { name: `Trace of ${correlationId}` }).first().click();
    await ada.waitForURL((url) => url.pathname === traceAddress());
    await stepTypes(ada);
    await ada.getByRole("link", { name: "These events in the event log" }).click();
    await expect(ada.getByLabel("Correlation id").inputValue()).resolves.toBe(correlationId);
    await until(() => ada.getByTestId("event-row").count(), (n) => n === traced.events, "the log narrowed from the trace");
    expect(journey.pageErrors).toEqual([]);
  });

  test("a viewer is told the trace is the admins', and sees none of it", async () => {
    await journey.ensurePerson("Vic", "viewer");
    const vic = await journey.newPage({ who: "Vic", viewport: LARGE });
    await journey.signIn(vic, "Vic");
    await vic.goto(appAt(traceAddress()));
    await expect(vic.getByTestId("admin-only").textContent()).resolves.toContain("Only the department’s owners and admins see a delegation’s trace");
    await expect(vic.getByTestId("trace-step").count()).resolves.toBe(0);
    await vic.goto(appAt(`/d/product/tasks/${subtaskId}`));
    await drawer(vic).getByRole("heading").first().waitFor();
    await expect(drawer(vic).getByRole("link", { name: "Trace of this delegation" }).count()).resolves.toBe(0);
    expect(journey.pageErrors).toEqual([]);
  });
});
