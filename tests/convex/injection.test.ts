import { describe, expect, test } from "vitest";
import { buildInjection, compactBody, DEFAULT_INJECTION_BUDGET, summariseThread, type InjectionMessage } from "../../convex/lib/injection";
import { countTokens } from "../../convex/lib/tokens";

let clock = 0;
function msg(fields: Partial<InjectionMessage> & { body: string }): InjectionMessage {
  clock += 1;
  return { id: `m${clock}`, from: "Ana", where: "#launch", importance: "normal", direct: false, aboutTask: false, createdAt: clock, ...fields };
}

const filler = (n: number) => Array.from({ length: n }, (_, i) => msg({ body: `Routine update number ${i}: the build is green and nothing needs you. `.repeat(3) }));

describe("the prompt-injection budget", () => {
  test("an empty inbox injects nothing", () => {
    expect(buildInjection([])).toEqual({ text: "", tokens: 0, included: [], omitted: { total: 0, critical: 0, direct: 0 } });
  });

  test("never exceeds the budget, whatever arrives", () => {
    for (const budget of [40, 100, 256, DEFAULT_INJECTION_BUDGET, 1024]) {
      for (const count of [1, 5, 50, 400]) {
        const messages = filler(count).map((m, i) => ({ ...m, importance: (["normal", "high", "critical"] as const)[i % 3], direct: i % 4 === 0 }));
        const result = buildInjection(messages, { budget });
        expect(countTokens(result.text), `budget ${budget}, ${count} messages`).toBeLessThanOrEqual(budget);
        expect(result.tokens).toBe(countTokens(result.text));
        expect(result.included.length + result.omitted.total).toBe(count);
      }
    }
  });

  test("selection order: critical > high > direct mentions > about the task > recent", () => {
    const normalOld = msg({ body: "old chatter" });
    const task = msg({ body: "about your task", aboutTask: true });
    const direct = msg({ body: "@Writer please look", direct: true });
    const high = msg({ body: "heads up", importance: "high" });
    const critical = msg({ body: "prod is down", importance: "critical" });
    const normalNew = msg({ body: "new chatter" });
    const { text } = buildInjection([normalOld, task, direct, high, critical, normalNew]);
    const order = ["prod is down", "heads up", "@Writer please look", "about your task", "new chatter", "old chatter"].map((s) => text.indexOf(s));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  test("a flood of high-importance chatter never crowds out a direct mention or a critical message", () => {
    const flood = filler(60).map((m) => ({ ...m, importance: "high" as const }));
    const direct = msg({ body: "@Writer: can you take the release notes?", direct: true });
    const critical = msg({ body: "Rollback now", importance: "critical" });
    const result = buildInjection([...flood, direct, critical], { budget: 300 });
    expect(result.text).toContain("can you take");
    expect(result.text).toContain("Rollback now");
    expect(result.included).toEqual(expect.arrayContaining([direct.id, critical.id]));
    expect(result.omitted.total).toBeGreaterThan(0);
    expect(result.text).toMatch(/more not shown.*inbox\.read.*messages\.fetch/);
  });

  test("when even the criticals overflow, the footer says how many were left out", () => {
    const criticals = Array.from({ length: 40 }, (_, i) => msg({ body: `Critical incident ${i}: database failover in region ${i} needs a decision now`, importance: "critical" }));
    const result = buildInjection(criticals, { budget: 200 });
    expect(countTokens(result.text)).toBeLessThanOrEqual(200);
    expect(result.omitted.critical).toBeGreaterThan(0);
    expect(result.omitted.critical + result.included.length).toBe(40);
    expect(result.text).toContain(`including ${result.omitted.critical} critical`);
  });

  test("a long thread is summarised in one line, keeping who and where it stands", () => {
    const thread = ["Which font for the launch page? I like Inter.", "Inter is fine.", "What about headings?", "Let's use Inter Display for headings."].map((body, i) =>
      msg({ body, from: i % 2 ? "Ben" : "Ana", threadId: "t1", where: "thread in #design" }),
    );
    const result = buildInjection(thread);
    expect(result.text).toContain("thread in #design (4 messages; Ana, Ben)");
    expect(result.text).toContain('began "Which font for the launch page?"');
    expect(result.text).toContain('latest from Ben: "Let\'s use Inter Display for headings."');
    expect(result.included).toHaveLength(4);
    expect(summariseThread(thread)).toBe(summariseThread([...thread].reverse()));
  });

  test("a configured summariser replaces the extractive summary", () => {
    const thread = Array.from({ length: 5 }, (_, i) => msg({ body: `reply ${i}`, threadId: "t2", where: "thread in #ops" }));
    expect(buildInjection(thread, { summarise: (ms) => `- model summary of ${ms.length}` }).text).toContain("- model summary of 5");
  });

  test("links are capped and long bodies cut", () => {
    const body = `see https://a.example/1 https://b.example/2 https://c.example/3 ${"word ".repeat(400)}`;
    const compact = compactBody(body, 50);
    expect(compact).toContain("https://a.example/1");
    expect(compact).toContain("https://b.example/2");
    expect(compact).toContain("[link]");
    expect(countTokens(compact)).toBeLessThanOrEqual(50);
    expect(compact.endsWith("…")).toBe(true);
  });
});
