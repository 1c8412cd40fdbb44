/**
 * Cleaning up, in real browsers against `npm start`'s stack (issue 27,
 * point 3). Ada (owner) and Grace (member), each in a browser of her own:
 *
 *   Grace posts a typo in a task's thread and edits it: both drawers show
 *   the new text marked "(edited)" → Ada deletes Grace's message (admins may)
 *   and Grace's drawer says it was deleted → in a channel Grace edits her
 *   post and deletes it → Grace archives the task: it leaves Ada's board
 *   and the Archived filter finds it, badged → Ada deletes it: gone from the
 *   board and the archive. Screenshots: tests/output/cleanup-*.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import { closeDrawer, composer, drawer, messageIn, screenshotPath, send, startJourneyOfTwo, type Journey } from "./journey";

const TITLE = "Clean-up journey task";
const TYPO = "Ship it on Firday";
const FIXED = "Ship it on Friday";

let journey: Journey;
let ada: Page;
let grace: Page;

beforeAll(async () => {
  ({ journey, ada, grace } = await startJourneyOfTwo("cleanup-journey-password"));
  const client = await journey.clientFor("Grace");
  const [department] = await client.query(api.departments.listMine, {});
  await client.mutation(api.tasks.create, { departmentId: department._id, title: TITLE });
});

afterAll(async () => {
  await journey?.close();
});

const card = (page: Page) => page.getByTestId("task-card").filter({ hasText: TITLE });

async function openTask(page: Page) {
  await card(page).getByRole("button", { name: TITLE, exact: true }).click();
  await drawer(page).getByRole("heading", { name: TITLE }).waitFor();
}

describe("deleting and editing, live in two browsers", () => {
  test("Grace edits her message in the thread; both drawers show the new text, marked edited", async () => {
    await openTask(grace);
    await openTask(ada);
    await composer(grace).fill(TYPO);
    await (await send(grace, TYPO)).waitFor();
    await messageIn(ada, TYPO).waitFor();
    // Ada may not edit Grace's words; she may delete them (an owner).
    await expect(messageIn(ada, TYPO).getByRole("button", { name: "Edit" }).count()).resolves.toBe(0);
    await expect(messageIn(ada, TYPO).getByRole("button", { name: "Delete" }).count()).resolves.toBe(1);

    const mine = messageIn(grace, TYPO);
    await mine.hover();
    await mine.getByRole("button", { name: "Edit" }).click();
    const box = drawer(grace).getByRole("textbox", { name: "Edit message" });
    await box.fill(FIXED);
    await box.press("Enter");
    await messageIn(grace, FIXED).getByText("(edited)").waitFor();
    await messageIn(ada, FIXED).getByText("(edited)").waitFor();
    await expect(messageIn(ada, TYPO).count()).resolves.toBe(0);
    await grace.screenshot({ path: screenshotPath("cleanup-edited.png") });
    expect(journey.pageErrors).toEqual([]);
  });

  test("Ada deletes Grace's message after confirming; Grace's drawer says it was deleted", async () => {
    const theirs = messageIn(ada, FIXED);
    await theirs.hover();
    await theirs.getByRole("button", { name: "Delete" }).click();
    await theirs.getByRole("group", { name: "Confirm delete" }).getByRole("button", { name: "Delete" }).click();
    await drawer(grace).getByTestId("message-deleted").waitFor();
    await expect(messageIn(grace, FIXED).count()).resolves.toBe(0);
    await drawer(ada).getByTestId("message-deleted").waitFor();
    expect(journey.pageErrors).toEqual([]);
  });

  test("in a channel Grace edits her post and deletes it", async () => {
    const client = await journey.clientFor("Grace");
    const [department] = await client.query(api.departments.listMine, {});
    await client.mutation(api.channels.create, { departmentId: department._id, name: "tidy-room", visibility: "project" });
    await closeDrawer(grace);
    await grace.getByTestId("nav-channels").click();
    await grace.getByTestId("channel-row").filter({ hasText: "#tidy-room" }).click();
    const view = grace.getByTestId("channel-view");
    const box = view.getByLabel("Message #tidy-room");
    await box.fill("teh plan");
    await box.press("Enter");
    const post = view.getByTestId("channel-message").filter({ hasText: "teh plan" });
    await post.hover();
    await post.getByRole("button", { name: "Edit" }).click();
    await view.getByRole("textbox", { name: "Edit message" }).fill("the plan");
    await view.getByRole("button", { name: "Save" }).click();
    const edited = view.getByTestId("channel-message").filter({ hasText: "the plan" });
    await edited.getByText("(edited)").waitFor();
    await edited.hover();
    await edited.getByRole("button", { name: "Delete" }).click();
    await edited.getByRole("group", { name: "Confirm delete" }).getByRole("button", { name: "Delete" }).click();
    await view.getByTestId("message-deleted").waitFor();
    await grace.screenshot({ path: screenshotPath("cleanup-channel.png") });
    expect(journey.pageErrors).toEqual([]);
  });

  test("Grace archives the task: it leaves Ada's board, and the Archived filter finds it", async () => {
    await grace.getByRole("navigation", { name: "Department" }).getByRole("link", { name: "Board", exact: true }).click();
    await openTask(grace);
    await drawer(grace).getByRole("button", { name: "Archive task" }).click();
    await drawer(grace).getByTestId("archived-note").waitFor();
    await drawer(ada).getByTestId("archived-note").waitFor();
    await closeDrawer(ada);
    await card(ada).waitFor({ state: "detached" });
    await ada.getByRole("button", { name: "Archived" }).click();
    await card(ada).getByText("Archived", { exact: true }).waitFor();
    await ada.screenshot({ path: screenshotPath("cleanup-archived.png") });
    expect(journey.pageErrors).toEqual([]);
  });

  test("Ada deletes the task: the drawer closes and it is gone from the archive too", async () => {
    await closeDrawer(grace);
    await openTask(ada);
    await drawer(ada).getByRole("button", { name: "Delete…" }).click();
    await drawer(ada).getByRole("group", { name: "Confirm delete" }).getByRole("button", { name: "Delete task" }).click();
    await drawer(ada).waitFor({ state: "detached" });
    await card(ada).waitFor({ state: "detached" });
    const client = await journey.clientFor("Ada");
    const [department] = await client.query(api.departments.listMine, {});
    for (const archived of [false, true]) {
      const titles = (await client.query(api.tasks.list, { departmentId: department._id, archived })).flatMap((c) => c.tasks.map((t) => t.title));
      expect(titles).not.toContain(TITLE);
    }
    expect(journey.pageErrors).toEqual([]);
  });
});
