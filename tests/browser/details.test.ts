/**
 * The small things a new squad trips on (issue 27, point 9), in real
 * browsers against `npm start`'s stack, with Ada (the owner) and Grace (a
 * member): the only owner is not offered Remove; a channel's badge clears
 * while it is read; the bell says who mentioned you and lists DMs; a file's
 * link downloads the file; signing out logs no UNAUTHENTICATED errors.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { startJourneyOfTwo, until, type Journey } from "./journey";

let journey: Journey;
let ada: Page;
let grace: Page;
let departmentId: Id<"departments">;

/** A person's key in the department (`member:<userId>`), as DMs name participants. */
async function memberKeyOf(name: string): Promise<string> {
  const members = await (await journey.clientFor("Ada")).query(api.members.list, { departmentId });
  return members.find((member) => member.name === name)!.key;
}

const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;

beforeAll(async () => {
  ({ journey, ada, grace } = await startJourneyOfTwo("details-test-password"));
  [{ _id: departmentId }] = await (await journey.clientFor("Ada")).query(api.departments.listMine, {});
});

afterAll(async () => {
  await journey?.close();
});

describe("small things, each fixed", () => {
  test("the only owner is not offered Remove (or a role change); a member is", async () => {
    await ada.getByRole("button", { name: "Members" }).click();
    const dialog = ada.getByRole("dialog", { name: /Members/ });
    await dialog.waitFor();
    const row = (name: string) => dialog.getByTestId("member-row").filter({ hasText: name });
    await row("Grace").getByRole("button", { name: "Remove" }).waitFor();
    await expect(row("Ada").getByRole("button", { name: "Remove" }).count()).resolves.toBe(0);
    await expect(row("Ada").getByTestId("member-role").textContent()).resolves.toBe("Owner");
    await ada.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
  });

  test("a channel's unread badge clears while Grace reads it, also for a reply in one of its threads", async () => {
    const asAda = await journey.clientFor("Ada");
    const asGrace = await journey.clientFor("Grace");
    const channelId = await asAda.mutation(api.channels.create, { departmentId, name: "launch-room", visibility: "project" });
    await asGrace.mutation(api.channels.setSubscribed, { channelId, subscribed: true });
    const root = await asAda.mutation(api.channelMessages.post, { channelId, body: "Kick-off at ten." });
    await grace.goto(appAt(`/d/product/channels/${channelId}`));
    await grace.getByTestId("channel-message").filter({ hasText: "Kick-off at ten." }).waitFor();
    const unread = () => asGrace.query(api.channels.list, { departmentId }).then((list) => list.find((c) => c._id === channelId)?.unread);
    await until(unread, (count) => count === 0, "the post to be read as it shows");
    // A reply lands in a thread Grace has not opened, while she reads the channel.
    await asAda.mutation(api.channelMessages.reply, { channelId, messageId: root, body: "Agenda is in the doc." });
    await until(unread, (count) => count === 0, "the reply to be read while the channel is open");
    await expect(grace.getByTestId("nav-unread").count()).resolves.toBe(0);
  });

  test("the bell says who mentioned Grace, and lists a DM with unread messages; picking the DM opens it", async () => {
    const asAda = await journey.clientFor("Ada");
    const taskId = await asAda.mutation(api.tasks.create, { departmentId, title: "Press kit", description: "", assigneeSessionKeys: [] });
    await asAda.mutation(api.messages.create, { taskId, content: "@Grace can you check the press kit?" });
    const dmId = await asAda.mutation(api.channels.openDm, { departmentId, participantKeys: [await memberKeyOf("Grace")] });
    await asAda.mutation(api.channelMessages.post, { channelId: dmId, body: "Lunch after the launch?" });
    await grace.goto(appAt("/d/product"));
    await grace.getByTestId("task-card").first().waitFor();
    await grace.getByRole("button", { name: /^Notifications/ }).click();
    await grace.getByText("Ada mentioned you in").first().waitFor();
    const dm = grace.getByTestId("notification-dm").filter({ hasText: "Ada" });
    await expect(dm.textContent()).resolves.toContain("1 unread direct message");
    await dm.click();
    await grace.getByTestId("channel-message").filter({ hasText: "Lunch after the launch?" }).waitFor();
    expect(new URL(grace.url()).pathname).toBe(`/d/product/channels/${dmId}`);
  });

  test("a file's link downloads the file under its name", async () => {
    const asAda = await journey.clientFor("Ada");
    const channelId = await asAda.mutation(api.channels.create, { departmentId, name: "files", visibility: "project" });
    const uploadUrl = await asAda.mutation(api.channelMessages.generateUploadUrl, { channelId });
    const uploaded = await fetch(uploadUrl, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "The launch checklist.\n" });
    const { storageId } = (await uploaded.json()) as { storageId: Id<"_storage"> };
    const artifact = await asAda.action(api.channelFiles.add, { channelId, storageId, name: "checklist.txt" });
    await asAda.mutation(api.channelMessages.post, { channelId, body: "The checklist", artifacts: [artifact] });
    await grace.goto(appAt(`/d/product/channels/${channelId}`));
    const link = grace.getByTestId("file-artifact").getByRole("link", { name: /checklist\.txt/ });
    await link.waitFor();
    const [download] = await Promise.all([grace.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe("checklist.txt");
    // No tab opened on the file instead.
    expect(grace.context().pages()).toHaveLength(1);
  });

  test("signing out logs no UNAUTHENTICATED errors", async () => {
    await grace.goto(appAt("/d/product"));
    await grace.getByTestId("task-card").first().waitFor();
    await grace.getByRole("button", { name: "Sign out" }).click();
    await grace.getByTestId("signin-form").waitFor();
    // Live queries that were still subscribed would fail a moment after.
    await grace.waitForTimeout(1_500);
    expect(journey.pageErrors.filter((line) => /UNAUTHENTICATED|Unauthenticated|not signed in/i.test(line))).toEqual([]);
    expect(journey.pageErrors).toEqual([]);
  });
});
