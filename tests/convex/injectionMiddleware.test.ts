/**
 * The one injection step (brain/prompt injectionMiddleware): the inbox, the
 * #maestro chat and the context pack under one token budget and one
 * selection, blocking messages opening the call, the chat cursor moving only
 * over what was shown, the chat addendum and reminder kept, and the tokens a
 * run injected summed on the run.
 */
import { describe, expect, test } from "vitest";
import { internal } from "../../convex/_generated/api";
import {
  CHAT_REMINDER,
  chatAddendum,
  chatPointer,
  injectionMiddleware,
  MESSAGES_HEAD,
  type ChatContext,
  type InboxContext,
  type PromptState,
} from "../../convex/brain/prompt";
import type { ProjectGraph } from "../../convex/lib/contextPack";
import type { InjectionMessage } from "../../convex/lib/injection";
import { countTokens } from "../../convex/lib/tokens";
import { AGENTS, createTask, demoSquad, insertRun } from "./setup";

/** The prompt so far, for a task with `title` and `description` (what the pack is reranked against). */
const state = (title = "Launch", description = ""): PromptState => ({ context: { task: { title, description } } as never, system: ["You are Dev Bot."], user: [`=== TASK ===\nTitle: ${title}`] });

function inboxMessage(i: number, fields: Partial<InjectionMessage> = {}): InjectionMessage {
  return { id: `m${i}`, from: "Ana", where: "#ops", body: `Update ${i}: the rollout of step ${i} went fine, nothing to do.`, importance: "normal", direct: false, aboutTask: false, createdAt: 1_000_000 + i, ...fields };
}

function chat(count: number, from = 1, extra: ChatContext["messages"] = []): ChatContext {
  const messages = Array.from({ length: count }, (_, i) => ({ id: from + i, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, from + i)).toISOString(), author: "@writer", text: `tip ${from + i}: cache the roster and reuse it across calls` }));
  const all = [...messages, ...extra].sort((a, b) => a.id - b.id);
  return { author: "@dev-bot", remind: false, messages: all, newPointer: all.at(-1)?.id ?? from - 1 };
}

const graph: ProjectGraph = {
  parent: { id: "p", title: "Pricing page", status: "in_progress", assignees: ["Jarvis"] },
  siblings: [{ id: "s", title: "Build the page", status: "assigned", assignees: ["Writer"] }],
  children: [],
  peers: [{ name: "Writer", task: "Build the page", status: "assigned" }],
  threads: [],
  artifacts: [{ id: "https://docs.example/brief", kind: "link", label: "Brief https://docs.example/brief", where: "#launch" }],
};

const injectedText = (before: PromptState, after: PromptState) => after.user.filter((part) => !before.user.includes(part)).join("\n\n");

describe("one injection under one budget", () => {
  test("inbox, #maestro and the pack together never exceed the budget; criticals and direct mentions are never dropped", async () => {
    const criticals = Array.from({ length: 4 }, (_, i) => inboxMessage(900 + i, { importance: "critical", body: `CRITICAL ${i}: the payment webhook is failing` }));
    const inbox: InboxContext = { blocking: [], unread: [...criticals, ...Array.from({ length: 500 }, (_, i) => inboxMessage(i))] };
    const mentions = [5000, 5001].map((id) => ({ id, ts: "2026-01-02T00:00:00.000Z", author: "@human", text: `@dev-bot please look at item ${id}` }));
    for (const budget of [200, 400, 768, 1500]) {
      const before = state();
      const after = state();
      const step = injectionMiddleware({ inbox: async () => inbox, chat: async () => chat(2000, 1, mentions), pack: async () => graph }, budget);
      await step.apply(after);
      const injected = step.injected()!;
      const text = injectedText(before, after);
      expect(injected.tokens).toBeLessThanOrEqual(budget);
      expect(countTokens(text)).toBeLessThanOrEqual(budget + 1);
      // Every critical message and direct mention is shown, or the footer says how many were left out.
      const shownCriticals = criticals.filter((m) => injected.shown.includes(m.id)).length;
      const shownMentions = mentions.filter((m) => text.includes(`please look at item ${m.id}`)).length;
      if (shownCriticals < criticals.length) expect(text).toMatch(new RegExp(`including ${criticals.length - shownCriticals} critical`));
      if (shownMentions < mentions.length) expect(text).toMatch(/addressed to you/);
      if (budget >= 768) {
        expect(shownCriticals).toBe(criticals.length);
        expect(shownMentions).toBe(mentions.length);
        expect(text).toContain("chat.getNew for #maestro");
        expect(text).toContain("=== PROJECT GRAPH");
      }
    }
  });

  test("tiny budgets: still never over, and what was not shown is neither read nor handled", async () => {
    const blocking = inboxMessage(1, { from: "Grace", where: "a DM", body: "Stop the newsletter, the price on the landing page is wrong", direct: true });
    for (const budget of [1, 5, 12, 25, 40, 60, 90]) {
      const before = state();
      const after = state();
      const step = injectionMiddleware({ inbox: async () => ({ blocking: [blocking], unread: [inboxMessage(2)] }), chat: async () => chat(3), pack: async () => graph }, budget);
      await step.apply(after);
      const injected = step.injected()!;
      expect(injected.tokens).toBeLessThanOrEqual(budget);
      expect(countTokens(injectedText(before, after))).toBeLessThanOrEqual(budget + 1);
      if (!injectedText(before, after).includes("You received a message from Grace")) expect(injected.blocking).toEqual([]);
    }
  });

  test("#maestro keeps the spec's addendum and reminder; the cursor moves only over what was shown, and on the next call goes on", async () => {
    const first = chat(300);
    const step = injectionMiddleware({ chat: async () => ({ ...first, remind: true }) }, 300);
    const after = state();
    await step.apply(after);
    expect(after.system[0]).toBe(CHAT_REMINDER);
    expect(after.system).toContain(chatAddendum("@dev-bot"));
    expect(after.user.at(-1)!.startsWith(MESSAGES_HEAD)).toBe(true);
    const shown = step.injected()!.chatShown;
    const pointer = step.fetched()!.newPointer;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(300);
    // The oldest first, so what was shown is a prefix: the cursor stops right after it.
    expect(pointer).toBe(shown);
    expect(after.user.at(-1)).toContain("- #maestro @writer: tip 1: cache the roster");
    expect(after.user.at(-1)).not.toContain(`tip ${pointer + 1}:`);

    const next = injectionMiddleware({ chat: async () => chat(300 - pointer, pointer + 1) }, 300);
    await next.apply(state());
    expect(next.fetched()!.newPointer).toBeGreaterThan(pointer);
  });

  test("the cursor never passes a message that was not shown", () => {
    const context = chat(5);
    expect(chatPointer(context, new Set(["chat:1", "chat:2", "chat:4"]))).toBe(2);
    expect(chatPointer(context, new Set())).toBe(0);
    expect(chatPointer({ ...context, messages: [], newPointer: 17 }, new Set())).toBe(17);
  });

  test("a blocking message opens the call, before the task; nothing to inject adds nothing", async () => {
    const blocking = inboxMessage(1, { from: "Grace", where: "a DM", body: "Stop the newsletter", direct: true });
    const step = injectionMiddleware({ inbox: async () => ({ blocking: [blocking], unread: [inboxMessage(2)] }), pack: async () => graph }, 768);
    const after = state();
    await step.apply(after);
    expect(after.user[0]).toMatch(new RegExp(`^${MESSAGES_HEAD.replace(/[()[\]]/g, "\\$&")}\\nYou received a message from Grace \\(a DM\\): Stop the newsletter`));
    expect(step.injected()).toMatchObject({ blocking: ["m1"], shown: ["m2"], chatShown: 0, packItems: 4 });

    const none = injectionMiddleware({ inbox: async () => ({ blocking: [], unread: [] }), chat: async () => null, pack: async () => null }, 768);
    const untouched = state();
    await none.apply(untouched);
    expect(untouched).toEqual(state());
    expect(none.injected()).toBeNull();
  });
});

describe("the pack reranked against the task", () => {
  test("its items are ordered by what the task says: the sibling about the task's subject comes first", async () => {
    const siblings = [
      { id: "s1", title: "Order new chairs", status: "assigned", assignees: [] },
      { id: "s2", title: "Pricing table for the pricing page", status: "assigned", assignees: [] },
    ];
    const pack = { ...graph, siblings };
    const lines = async (title: string, description: string) => {
      const after = state(title, description);
      await injectionMiddleware({ pack: async () => pack }, 768).apply(after);
      return after.user.join("\n").split("\n").filter((line) => line.startsWith('- "'));
    };
    expect(await lines("Hero copy", "Write the pricing page's hero: the pricing table sits under it.")).toEqual([
      '- "Pricing page" (in progress; Jarvis)',
      '- "Pricing table for the pricing page" (assigned)',
      '- "Order new chairs" (assigned)',
    ]);
    // A task that says nothing of either keeps the rule order.
    expect((await lines("Standup", "")).slice(1)).toEqual(['- "Order new chairs" (assigned)', '- "Pricing table for the pricing page" (assigned)']);
  });
});

describe("runs.injectionTokens", () => {
  test("the tokens each model call injected are summed on the run", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const taskId = await createTask(admin, departmentId, { title: "Launch" });
    const runId = await insertRun(t, AGENTS.devBot, taskId);
    const timing = { contextMs: 1, modelMs: 1, dispatchMs: 1 };
    await t.mutation(internal.brain.writes.recordModelCall, { runId, model: "m", promptTokens: 10, completionTokens: 2, timing, injectionTokens: 300 });
    await t.mutation(internal.brain.writes.recordModelCall, { runId, model: "m", promptTokens: 10, completionTokens: 2, timing, injectionTokens: 120 });
    await t.mutation(internal.brain.writes.recordModelCall, { runId, model: "m", promptTokens: 10, completionTokens: 2, timing });
    const run = await t.run(async (ctx) => (await ctx.db.get("runs", runId))!);
    expect(run.injectionTokens).toBe(420);
  });
});
