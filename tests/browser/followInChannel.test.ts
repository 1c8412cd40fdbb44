/**
 * Follow in channel in the task drawer (src/task/FollowInChannel.tsx): an
 * owner follows a task in #launch and the server has it; a viewer is not
 * offered the control. Light and dark at 1440, 1280 and 390 px pass
 * axe-core with no violation.
 * Screenshots: tests/output/follow-in-channel-<light|dark>-<width>.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { auditLooks, drawer, LARGE, showLook, startJourney, until, type Journey } from "./journey";

const TITLE = "Launch checklist";

let journey: Journey;
let taskId: Id<"tasks">;
let channelId: Id<"channels">;

beforeAll(async () => {
  journey = await startJourney({ password: "follow-in-channel-password" });
});

afterAll(async () => {
  await journey?.close();
});

async function openTask(page: Page) {
  await page.locator(`[data-testid="task-card"][data-task-id="${taskId}"]`).getByRole("button", { name: TITLE, exact: true }).click();
  await drawer(page).getByRole("heading", { name: TITLE, exact: true }).waitFor();
}

describe("Follow in channel", () => {
  test("an owner follows a task in #launch from its drawer, and the server has it", async () => {
    const page = await journey.newPage({ who: "Ada" });
    await journey.signIn(page, "Ada");
    const asAda = await journey.clientFor("Ada");
    const [department] = await asAda.query(api.departments.listMine, {});
    channelId = await asAda.mutation(api.channels.create, { departmentId: department._id, name: "launch", visibility: "project" });
    taskId = await asAda.mutation(api.tasks.create, { departmentId: department._id, title: TITLE });
    await openTask(page);
    await drawer(page).getByLabel("Follow in", { exact: true }).selectOption({ label: "#launch" });
    await until(async () => (await asAda.query(api.tasks.get, { taskId })).channelId, (id) => id === channelId, "the task followed in #launch");
    await page.close();
  });

  test("a viewer is not offered it", async () => {
    await journey.ensurePerson("Vera", "viewer");
    const page = await journey.newPage({ who: "Vera" });
    await journey.signIn(page, "Vera");
    await openTask(page);
    expect(await drawer(page).getByLabel("Follow in", { exact: true }).count()).toBe(0);
    await page.close();
  });

  test("light and dark, at 1440, 1280 and 390 px: no axe violation", async () => {
    const page = await journey.newPage({ who: "Ada", viewport: LARGE });
    await journey.signIn(page, "Ada");
    await openTask(page);
    const failures = await auditLooks("follow-in-channel", async (look) => {
      await showLook(page, look);
      await drawer(page).getByRole("region", { name: "Follow in channel" }).scrollIntoViewIfNeeded();
      return page;
    });
    await page.close();
    expect(failures).toEqual({});
    expect(journey.pageErrors).toEqual([]);
  });
});
