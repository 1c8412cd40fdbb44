/**
 * A message may be just files: in a task's thread and in a channel, Ada
 * attaches a file, types nothing, and Send posts it (today the button stays
 * off and the server says the text is required). Light and dark at 1440,
 * 1280 and 390 px pass axe-core's WCAG 2.1 AA rules. Screenshots:
 * tests/output/files-only-thread-*.png, files-only-channel-*.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { auditLooks, drawer, LARGE, showLook, startJourney, until, type Journey } from "./journey";

let journey: Journey;
let taskId: Id<"tasks">;
let channelId: Id<"channels">;
const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;
const NOTES = { name: "launch-notes.md", mimeType: "text/markdown", buffer: Buffer.from("# Launch\nship friday\n") };

beforeAll(async () => {
  journey = await startJourney({ password: "files-only-password" });
  const ada = await journey.clientFor("Ada");
  const [department] = await ada.query(api.departments.listMine, {});
  taskId = await ada.mutation(api.tasks.create, { departmentId: department._id, title: "Files only" });
  channelId = await ada.mutation(api.channels.create, { departmentId: department._id, name: "files-only", visibility: "project" });
}, 240_000);

afterAll(async () => {
  await journey?.close();
});

async function page(): Promise<Page> {
  const p = await journey.newPage({ who: "Ada", viewport: LARGE });
  await journey.signIn(p, "Ada");
  return p;
}

describe("a message of files only", () => {
  test("in a task's thread: a file and no text is sent and shows with its file", async () => {
    const ada = await page();
    await ada.goto(appAt(`/d/product/tasks/${taskId}`));
    const box = drawer(ada);
    await box.getByRole("heading", { name: "Files only", exact: true }).waitFor();
    await box.getByTestId("attach-input").setInputFiles([NOTES]);
    await until(async () => (await box.getByTestId("pending-file").allTextContents()).join(" "), (t) => t.includes("ready"), "the upload");
    const sendButton = box.getByRole("button", { name: "Send", exact: true });
    await expect(sendButton.isEnabled()).resolves.toBe(true);
    await sendButton.click();
    await box.getByTestId("message").getByRole("link", { name: /launch-notes\.md/ }).waitFor();
    await until(async () => box.getByTestId("pending-file").count(), (n) => n === 0, "the composer's files to clear");
    // No empty text bubble above the file.
    await expect(box.getByTestId("message").filter({ has: ada.getByRole("link", { name: /launch-notes\.md/ }) }).getByTestId("message-text").count()).resolves.toBe(0);
    const [message] = (await (await journey.clientFor("Ada")).query(api.messages.list, { taskId, paginationOpts: { numItems: 5, cursor: null } })).page;
    expect(message).toMatchObject({ content: "", files: [expect.objectContaining({ name: "launch-notes.md" })] });
    const failures = await auditLooks("files-only-thread", async (look) => {
      await showLook(ada, look);
      await box.getByTestId("message").getByRole("link", { name: /launch-notes\.md/ }).scrollIntoViewIfNeeded();
      return ada;
    });
    expect(failures).toEqual({});
  }, 180_000);

  test("in a channel: a file and no text is posted", async () => {
    const ada = await page();
    await ada.goto(appAt(`/d/product/channels/${channelId}`));
    const composer = ada.getByTestId("message-composer");
    await composer.waitFor();
    await composer.getByTestId("attach-input").setInputFiles([{ ...NOTES, name: "channel-notes.md" }]);
    await until(async () => (await composer.getByTestId("pending-file").allTextContents()).join(" "), (t) => t.includes("ready"), "the upload");
    const sendButton = composer.getByRole("button", { name: "Send", exact: true });
    await expect(sendButton.isEnabled()).resolves.toBe(true);
    await sendButton.click();
    await ada.getByTestId("channel-message").getByRole("link", { name: /channel-notes\.md/ }).waitFor();
    const failures = await auditLooks("files-only-channel", async (look) => {
      await showLook(ada, look);
      return ada;
    });
    expect(failures).toEqual({});
    expect(journey.pageErrors).toEqual([]);
  }, 180_000);
});
