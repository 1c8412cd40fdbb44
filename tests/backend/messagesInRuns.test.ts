/**
 * What a run is shown of an agent's messages, and which messages start a
 * run, end to end on the offline backend with a scripted streaming model:
 * an old critical message behind 160 newer ones is weighed (read by index,
 * not from the newest window) and what does not fit is counted; the #maestro
 * addendum and feed reach only agents allowed the chat tools; a plain DM or
 * @mention wakes an idle agent, and only "Blocking" interrupts a busy one.
 */
import type { ConvexHttpClient } from "convex/browser";
import { beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import type { ChatMessage } from "../../convex/brain/model";
import { MESSAGES_HEAD } from "../../convex/brain/prompt";
import { agentsWithKeys, waitFor, scriptedSquad } from "./helpers";
import type { ScriptedAnswer, ScriptedRequest, ScriptedModel } from "./scriptedModel";

let model: ScriptedModel;
let ada: ConvexHttpClient;
let departmentId: Id<"departments">;
let script: (request: ScriptedRequest) => ScriptedAnswer = () => "Noted.";

const squad = scriptedSquad((request) => script(request));
beforeAll(() => {
  ({ model, member: ada, departmentId } = squad);
});

const whoIs = (messages: ChatMessage[]) => /You are ([^()\n]+?) \(/.exec(messages[0].content)?.[1];
const requestsOf = (agent: string) => model.requests.filter((r) => whoIs(r.messages) === agent);
const promptText = (request: ScriptedRequest) => request.messages.map((m) => m.content).join("\n\n");

async function settled(taskId: Id<"tasks">, count = 1) {
  await waitFor(async () => {
    const runs = await ada.query(api.runs.listForTask, { taskId });
    return runs.length >= count && runs.every((r) => r.status === "completed" || r.status === "error" || r.status === "aborted");
  }, 30_000, "the task's runs to end");
  return await ada.query(api.runs.listForTask, { taskId });
}

async function postAs(key: string, channel: string, body: string, importance?: "critical") {
  const response = await fetch(`${squad.backend.siteUrl}/messages`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ channel, body, ...(importance === undefined ? {} : { importance }) }),
  });
  if (response.status !== 200) throw new Error(`POST /messages: ${response.status} ${await response.text()}`);
}

describe("a run weighs every critical message, whatever its age", () => {
  test("161 unread, one older critical and 160 newer normal: the critical is shown, and the rest not shown are counted", async () => {
    // Posters stay inside their rate limit: 9 agents, 18 posts each at most.
    const keys = await agentsWithKeys(ada, departmentId, { count: 9, prefix: "Poster", allowedTools: ["post_message"] });
    const channelId = await ada.mutation(api.channels.create, { departmentId, name: "firehose", visibility: "project" });
    await ada.mutation(api.channels.addMember, { channelId, key: "agent:writer:product" });
    await postAs(keys[0], "#firehose", "CRITICAL: the production database password rotated, pause all deploys", "critical");
    for (let i = 0; i < 160; i++) await postAs(keys[1 + (i % 8)], "#firehose", `routine update number ${i} about the launch checklist`);

    script = () => "Noted.";
    const taskId = await ada.mutation(api.tasks.create, { departmentId, title: "Launch copy", description: "", assigneeSessionKeys: [] });
    await ada.mutation(api.messages.create, { taskId, content: "@Writer status?" });
    await settled(taskId);
    const request = requestsOf("Writer").find((r) => promptText(r).includes(MESSAGES_HEAD));
    expect(request).toBeDefined();
    const text = promptText(request!);
    expect(text).toContain("(critical): CRITICAL: the production database password rotated");
    const shown = text.split("\n").filter((line) => line.includes(" in #firehose")).length;
    const footer = /\((\d+)\+? more not shown/.exec(text);
    expect(footer).not.toBeNull();
    // Nothing is lost: what is not shown is counted.
    expect(shown + Number(footer![1])).toBe(161);
  });
});

describe("the #maestro chat in a prompt", () => {
  test("an agent without the chat tools gets neither the chat addendum nor the #maestro feed; one allowed them gets both", async () => {
    await ada.mutation(api.chat.postAsHuman, { departmentId, text: "Heads up: the API is frozen today." });
    await ada.mutation(api.agents.create, {
      departmentId,
      name: "Quiet",
      role: "Specialist",
      kind: "specialist",
      systemPrompt: "",
      isSquadLead: false,
      allowedTools: ["post_message"],
    });
    script = () => "Noted.";
    const quietTask = await ada.mutation(api.tasks.create, { departmentId, title: "Quiet work", description: "", assigneeSessionKeys: [] });
    await ada.mutation(api.messages.create, { taskId: quietTask, content: "@Quiet hello" });
    await settled(quietTask);
    const quiet = promptText(requestsOf("Quiet")[0]);
    expect(quiet).not.toContain("Heads up: the API is frozen today.");
    expect(quiet).not.toContain("#maestro");

    const devTask = await ada.mutation(api.tasks.create, { departmentId, title: "Dev work", description: "", assigneeSessionKeys: [] });
    await ada.mutation(api.messages.create, { taskId: devTask, content: "@Dev Bot hello" });
    await settled(devTask);
    const dev = promptText(requestsOf("Dev Bot").at(-1)!);
    expect(dev).toContain("Heads up: the API is frozen today.");
    expect(dev).toContain("#maestro");
  });
});

describe("messages that wake an agent", () => {
  test("a plain DM (normal importance, not blocking) to an idle agent wakes it, and its answer lands in the DM", async () => {
    script = (request) => (whoIs(request.messages) === "Writer" ? "Here is the FAQ draft." : "Noted.");
    const dm = await ada.mutation(api.channels.openDm, { departmentId, participantKeys: ["agent:writer:product"] });
    const before = requestsOf("Writer").length;
    await ada.mutation(api.channelMessages.post, { channelId: dm, body: "@Writer please write the FAQ" });
    await waitFor(async () => {
      const history = await ada.query(api.channelMessages.history, { channelId: dm, paginationOpts: { numItems: 10, cursor: null } });
      return history.page.some((m) => m.from.kind === "agent" && m.body === "Here is the FAQ draft.");
    }, 30_000, "Writer's answer in the DM");
    const woken = requestsOf("Writer").slice(before);
    expect(promptText(woken[0])).toContain('sent you a message');
    expect(promptText(woken[0])).toContain("please write the FAQ");
    expect(promptText(woken[0])).not.toContain("blocking message");
  });
});
