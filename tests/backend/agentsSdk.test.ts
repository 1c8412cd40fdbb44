/**
 * An outside agent in a host nobody on the project wrote: the OpenAI Agents
 * SDK (`@openai/agents`) holding Dev Bot's key, connected to Maestro's MCP
 * server over Streamable HTTP (`MCPServerStreamableHttp`) and over stdio
 * (`MCPServerStdio`, tools/mcp/bin.js started from another folder), thinking
 * with a scripted Chat Completions server that calls the tools it is offered
 * natively. Maestro's own agents think with the scripted streaming model;
 * Jarvis delegates. Dev Bot runs outside Maestro: Maestro never runs it. The
 * outside agent asks Jarvis in #maestro and for work with tasks_create,
 * follows the task and the subtask Jarvis hands to Dev Bot, finds it among
 * its own tasks, reads its thread, posts there and moves the card to review,
 * which the parent hears of.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, MCPServerStdio, MCPServerStreamableHttp, OpenAIProvider, Runner, setTracingDisabled, type MCPServer } from "@openai/agents";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";
import { WIRE_NAME_PATTERN } from "../../convex/lib/toolNames";
import { PROJECT_ROOT, scriptedSquad, squadTasks, waitFor } from "./helpers";
import { isJarvis, lastUser } from "./scriptedModel";
import { contentText, startToolCallingModel, type ToolCallingModel, type ToolCallingRequest, type ToolCallingAnswer } from "./toolCallingModel";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

setTracingDisabled(true);

/** Jarvis (in Maestro) splits off the form for Dev Bot when a task asks for a launch page. */
const squad = scriptedSquad((request) => {
  if (!isJarvis(request.messages)) return "Noted.";
  const last = lastUser(request.messages);
  if (last.startsWith("=== TOOL RESULTS ===")) return "Delegated the form to Dev Bot.";
  const title = /Title: (Launch page \((?:http|stdio)\))/.exec(last)?.[1];
  if (title === undefined || !last.includes("You were assigned")) return "Nothing to do.";
  const delegation = { title: `Signup form for ${title}`, description: "The form.", assignees: ["Dev Bot"], instruction: "Build the signup form." };
  return `On it. [TOOL: delegate_task ARG: ${JSON.stringify(delegation)}]`;
});
const { thread } = squadTasks(squad);

/** The tool results the outside model was given so far in a request, parsed, in order. */
function results(request: ToolCallingRequest): Json[] {
  return request.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(contentText(m.content)) as Json);
}

/**
 * The outside agent's model: what to call next, from the conversation so far.
 * Run 1 asks Jarvis for the launch page; run 2 follows task <id> to review.
 */
function outsideScript(request: ToolCallingRequest): ToolCallingAnswer {
  const ask = contentText(request.messages.find((m) => m.role === "user")?.content);
  const done = results(request);
  const call = (name: string, args: Record<string, unknown>): ToolCallingAnswer => ({ calls: [{ name, arguments: args }] });
  const inChat = /^Ask Jarvis in #maestro: (.+)$/.exec(ask);
  if (inChat !== null) return done.length === 0 ? call("chat_post", { text: `@Jarvis ${inChat[1]}` }) : { text: `Posted ${done[0].id}.` };
  const mine = /^List my tasks$/.exec(ask);
  if (mine !== null) return done.length === 0 ? call("tasks_assigned", { assignee: "me" }) : { text: JSON.stringify(done[0].tasks.map((t: Json) => t.id)) };
  const asking = /^Ask Jarvis for the (Launch page \((?:http|stdio)\))/.exec(ask);
  if (asking !== null) {
    if (done.length === 0) return call("tasks_create", { title: asking[1], description: "Hero and a signup form.", assignees: ["Jarvis"] });
    return { text: `Asked Jarvis: task ${done[0].id}.` };
  }
  const parentId = /^Follow task (\S+)/.exec(ask)![1];
  switch (done.length) {
    case 0:
      return call("tasks_get", { task_id: parentId });
    case 1:
      return call("tasks_get", { task_id: done[0].subtasks[0].id });
    case 2:
      return call("tasks_messages", { task_id: done[1].id, limit: 50 });
    case 3:
      return call("tasks_post", { task_id: done[1].id, body: "The signup form is up on staging." });
    case 4:
      return call("tasks_set_status", { task_id: done[1].id, status: "review" });
    case 5:
      return call("tasks_get", { task_id: parentId });
    default:
      return { text: `“${done[5].subtasks[0].title}” is ${done[5].subtasks[0].status}.` };
  }
}

let outsideModel: ToolCallingModel;
let key: string;
const elsewhere = mkdtempSync(path.join(tmpdir(), "maestro-agents-sdk-"));

beforeAll(async () => {
  outsideModel = await startToolCallingModel(outsideScript);
  const devBot = (await squad.member.query(api.agents.list, { departmentId: squad.departmentId })).find((a) => a.name === "Dev Bot")!._id;
  ({ key } = await squad.member.mutation(api.agentApiKeys.create, { agentId: devBot }));
  // Dev Bot is the outside agent's: Maestro hands it work and never runs it.
  await squad.member.mutation(api.agents.setRunsOutside, { agentId: devBot, runsOutside: true });
});

/** Whether Maestro ever asked its model to think as Dev Bot. */
const ranDevBot = () => squad.model.requests.some((request) => /You are Dev Bot \(/.test(request.messages[0].content));

afterAll(async () => {
  await outsideModel?.close();
});

function maestroServer(transport: "http" | "stdio"): MCPServer {
  if (transport === "http") {
    return new MCPServerStreamableHttp({ name: "maestro", url: `${squad.backend.siteUrl}/mcp`, requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith("MAESTRO_")) env[name] = value;
  return new MCPServerStdio({
    name: "maestro",
    command: process.execPath,
    args: [path.join(PROJECT_ROOT, "tools/mcp/bin.js")],
    cwd: elsewhere,
    env: { ...env, MAESTRO_SITE_URL: squad.backend.siteUrl, MAESTRO_AGENT_KEY: key },
  });
}

describe.each(["http", "stdio"] as const)("the OpenAI Agents SDK as the host, over %s", (transport) => {
  test("asks Jarvis in #maestro and with tasks_create, receives the delegation as an agent Maestro never runs, follows it, posts and moves its card to review", async () => {
    const server = maestroServer(transport);
    await server.connect();
    try {
      const runner = new Runner({ modelProvider: new OpenAIProvider({ apiKey: "test-key", baseURL: outsideModel.baseURL, useResponses: false }), tracingDisabled: true });
      const agent = new Agent({ name: "Dev Bot (outside)", instructions: "You are Dev Bot, working in Maestro's squad from outside.", mcpServers: [server], model: "scripted" });
      const from = outsideModel.requests.length;

      // In #maestro: the key's post wakes Jarvis, who answers there.
      const jarvisPostsBefore = (await squad.member.query(api.chat.list, { departmentId: squad.departmentId })).filter((m) => m.author === "@jarvis").length;
      await runner.run(agent, `Ask Jarvis in #maestro: what is the squad on today (${transport})?`);
      const pane = await squad.member.query(api.chat.list, { departmentId: squad.departmentId });
      expect(pane.map((m) => [m.author, m.text])).toContainEqual(["@dev-bot", `@Jarvis what is the squad on today (${transport})?`]);
      await waitFor(async () => (await squad.member.query(api.chat.list, { departmentId: squad.departmentId })).filter((m) => m.author === "@jarvis").length > jarvisPostsBefore, 30_000, "Jarvis to answer in #maestro");

      const asked = await runner.run(agent, `Ask Jarvis for the Launch page (${transport}).`);
      const parentId = /task (\S+)\.$/.exec(String(asked.finalOutput))![1];
      // The tools went out natively, under names the OpenAI API accepts, Maestro's among them.
      const offered = outsideModel.requests[from].tools;
      expect(offered).toEqual(expect.arrayContaining(["tasks_create", "tasks_get", "tasks_messages", "tasks_post", "tasks_set_status", "chat_post"]));
      for (const name of offered) expect(name).toMatch(WIRE_NAME_PATTERN);

      await waitFor(async () => (await squad.member.query(api.tasks.listSubtasks, { taskId: parentId as Id<"tasks"> })).subtasks.length === 1, 30_000, "Jarvis to delegate");
      // Handed to an agent that runs outside: it is among the key's own tasks, and Maestro did not start on it.
      const subId = (await squad.member.query(api.tasks.listSubtasks, { taskId: parentId as Id<"tasks"> })).subtasks[0]._id;
      const mine = await runner.run(agent, "List my tasks");
      expect(JSON.parse(String(mine.finalOutput))).toContain(subId);
      const followed = await runner.run(agent, `Follow task ${parentId} to review.`);
      expect(followed.finalOutput).toBe(`“Signup form for Launch page (${transport})” is review.`);

      // What the outside agent read: the parent, the subtask (delegated by Jarvis to Dev Bot), its thread.
      const last = outsideModel.requests.at(-1)!;
      const [parent, sub, page, posted, moved] = results(last);
      expect(parent).toMatchObject({ id: parentId, assignees: ["Jarvis"], created_by: "Dev Bot", subtasks: [{ assignees: ["Dev Bot"], delegated_by: "Jarvis" }] });
      expect(sub).toMatchObject({ parent: { id: parentId }, delegated_by: "Jarvis", assignees: ["Dev Bot"] });
      expect(page.messages.length).toBeGreaterThan(0);
      expect(posted).toMatchObject({ task_id: sub.id, from: "Dev Bot", body: "The signup form is up on staging." });
      expect(moved).toMatchObject({ id: sub.id, to: "review" });

      // Maestro agrees: the card is in review, the post is in its thread, and the parent's thread says so.
      expect((await squad.member.query(api.tasks.get, { taskId: sub.id as Id<"tasks"> })).status).toBe("review");
      expect((await thread(sub.id as Id<"tasks">)).map((m) => m.content)).toContain("The signup form is up on staging.");
      await waitFor(async () => (await thread(parentId as Id<"tasks">)).some((m) => m.content.includes("Signup form for") && /review/i.test(m.content)), 10_000, "the parent's update line");
      expect(ranDevBot()).toBe(false);
    } finally {
      await server.close();
    }
  }, 90_000);
});
