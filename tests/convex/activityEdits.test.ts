/**
 * The activity feed follows a message's edits (issue 42): a message to an
 * agent in a DM or a channel is quoted on its task's timeline
 * (`blocking_message_received`); editing it shows the new text there, marked
 * edited, and deleting it leaves no text. Only that message's entries change,
 * and only its author may edit it.
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
    const dm = await grace.mutation(api.channels.openDm, { departmentId, participantKeys: [AGENTS.writer] });
    const first: Id<"channelMessages"> = await grace.mutation(api.channelMessages.post, { channelId: dm, body: "Stop the newsletter, the price is wrong", blocking: true, taskId });
    await grace.mutation(api.channelMessages.post, { channelId: dm, body: "And the footer", blocking: true, taskId });
    expect((await quotes(t)).map((a) => a.data.preview)).toEqual(["Stop the newsletter, the price is wrong", "And the footer"]);

    await grace.mutation(api.channelMessages.edit, { channelId: dm, messageId: first, body: "Stop the newsletter, the date is wrong" });
    const [edited, other] = await quotes(t);
    expect(edited.data).toMatchObject({ preview: "Stop the newsletter, the date is wrong", edited: true });
    expect(other.data.preview).toBe("And the footer");
    expect(other.data.edited).toBeUndefined();
    // As the feed reads it.
    const line = describeActivity(edited);
    expect(line).toContain("“Stop the newsletter, the date is wrong”");
    expect(line).toContain("(edited)");
    expect(line).not.toContain("price");

    // Someone else cannot edit it (the feed keeps the author's words).
    await expectError(admin.mutation(api.channelMessages.edit, { channelId: dm, messageId: first, body: "hijacked" }), "FORBIDDEN");
    expect((await quotes(t))[0].data.preview).toBe("Stop the newsletter, the date is wrong");

    await grace.mutation(api.channelMessages.remove, { channelId: dm, messageId: first });
    const [deleted] = await quotes(t);
    expect(deleted.data).toMatchObject({ preview: null, deleted: true });
    expect(describeActivity(deleted)).toMatch(/\(message deleted\)$/);
  });
});
