/**
 * The activity feed follows a message's edits (issue 42): a message to an
 * agent in a DM or a channel is quoted on its task's timeline
 * (`blocking_message_received`); editing it shows the new text there, marked
 * edited, and deleting it leaves no text. Only that message's entries change,
 * and only its author may edit it. The feed is the whole department's, so a
 * DM's or a private channel's words are never quoted there, edited or not.
 */
import { describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { describeActivity } from "../../src/activity/describe";
import { AGENTS, createTask, demoSquad, expectError, withClosedModel, type TestConvex } from "./setup";

withClosedModel();

const quotes = async (t: TestConvex) =>
  await t.run(async (ctx) => (await ctx.db.query("activities").collect()).filter((a) => a.type === "blocking_message_received"));

describe("the feed's quote of a message to an agent", () => {
  test("an edit shows the new text, marked edited; a delete leaves no text; other entries stay", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const taskId = await createTask(admin, departmentId, { title: "Newsletter" });
    const channel = await admin.mutation(api.channels.create, { departmentId, name: "newsletter", visibility: "project" });
    const first: Id<"channelMessages"> = await grace.mutation(api.channelMessages.post, { channelId: channel, body: "@Writer Stop the newsletter, the price is wrong", blocking: true, taskId });
    await grace.mutation(api.channelMessages.post, { channelId: channel, body: "@Writer And the footer", blocking: true, taskId });
    expect((await quotes(t)).map((a) => a.data.preview)).toEqual(["@Writer Stop the newsletter, the price is wrong", "@Writer And the footer"]);

    await grace.mutation(api.channelMessages.edit, { channelId: channel, messageId: first, body: "@Writer Stop the newsletter, the date is wrong" });
    const [edited, other] = await quotes(t);
    expect(edited.data).toMatchObject({ preview: "@Writer Stop the newsletter, the date is wrong", edited: true });
    expect(other.data.preview).toBe("@Writer And the footer");
    expect(other.data.edited).toBeUndefined();
    // As the feed reads it.
    const line = describeActivity(edited);
    expect(line).toContain("“@Writer Stop the newsletter, the date is wrong”");
    expect(line).toContain("(edited)");
    expect(line).not.toContain("price");

    // Someone else cannot edit it (the feed keeps the author's words).
    await expectError(admin.mutation(api.channelMessages.edit, { channelId: channel, messageId: first, body: "hijacked" }), "FORBIDDEN");
    expect((await quotes(t))[0].data.preview).toBe("@Writer Stop the newsletter, the date is wrong");

    await grace.mutation(api.channelMessages.remove, { channelId: channel, messageId: first });
    const [deleted] = await quotes(t);
    expect(deleted.data).toMatchObject({ preview: null, deleted: true });
    expect(describeActivity(deleted)).toMatch(/\(message deleted\)$/);
  });

  test("a DM's and a private channel's words are never quoted to the department, when sent or edited", async () => {
    const { t, departmentId, admin, grace } = await demoSquad({ grace: true });
    const taskId = await createTask(admin, departmentId, { title: "Salaries" });
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    const sent: Id<"channelMessages"> = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Raise Bob's salary by 20%", blocking: true, taskId });
    const hush = await grace.mutation(api.channels.create, { departmentId, name: "hush", visibility: "private" });
    await grace.mutation(api.channels.addMember, { channelId: hush, key: AGENTS.writer });
    await grace.mutation(api.channelMessages.post, { channelId: hush, body: "@Writer the layoffs list is final", blocking: true, taskId });
    await grace.mutation(api.channelMessages.edit, { channelId: dm, messageId: sent, body: "Raise Bob's salary by 30%" });

    const lines = (await quotes(t)).map((entry) => describeActivity(entry));
    expect(lines).toHaveLength(2);
    expect(lines.join("\n")).not.toMatch(/salary|layoffs/);
    expect(lines[0]).toContain("message in a DM about");
    expect(lines[1]).toContain("message in a private channel about");
    // As another member reads the feed.
    const feed = await admin.query(api.activities.list, { departmentId, paginationOpts: { numItems: 50, cursor: null } });
    expect(JSON.stringify(feed.page)).not.toMatch(/salary|layoffs/);
  });
});
