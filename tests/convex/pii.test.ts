/** PII rules on injected text (lib/pii, applied by lib/injection buildInjection). */
import { describe, expect, test } from "vitest";
import { api, internal } from "../../convex/_generated/api";
import { buildInjection, type InjectionMessage } from "../../convex/lib/injection";
import { ibanValid, luhnValid, redactPii } from "../../convex/lib/pii";
import { agent, AGENTS, createTask, demoSquad, insertRun } from "./setup";

const message = (body: string, id = "m1"): InjectionMessage => ({ id, from: "Ana", where: "#ops", body, importance: "normal", direct: true, aboutTask: false, createdAt: 1 });

describe("PII rules", () => {
  test("e-mail addresses, phone numbers, Luhn-valid cards and valid IBANs are replaced", () => {
    const text = "Mail ana.lopez+ops@example.co.uk or call +44 20 7946 0958 / (212) 555-0199; card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32.";
    expect(redactPii(text)).toBe("Mail [email] or call [phone] / [phone]; card [card], IBAN [iban].");
  });

  test("look-alikes stay: a card number failing Luhn, an IBAN failing mod 97, short numbers, versions, dates", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(ibanValid("GB82WEST12345698765432")).toBe(true);
    expect(ibanValid("GB83WEST12345698765432")).toBe(false);
    // Not an IBAN (its digit groups may still read as a phone number, which errs on the side of hiding).
    expect(redactPii("IBAN GB83 WEST 1234 5698 7654 32")).not.toContain("[iban]");
    expect(redactPii("order 12345, v1.2.3, on 2026-05-01, PR #4411")).toBe("order 12345, v1.2.3, on 2026-05-01, PR #4411");
    // 16 digits that fail Luhn are not a card; as one long digit run they are not a phone number either (over 15 digits).
    expect(redactPii("ref 4111 1111 1111 1112")).not.toContain("[card]");
  });

  test("rules can be turned off one by one", () => {
    const text = "ana@example.com 4111-1111-1111-1111";
    expect(redactPii(text, { email: false })).toBe("ana@example.com [card]");
    expect(redactPii(text, { card: false, phone: false })).toBe("[email] 4111-1111-1111-1111");
  });

  test("the injection shows no PII, in quotes and in thread summaries alike", () => {
    const quoted = buildInjection([message("Reach me at grace@example.com or 415-555-0132")]);
    expect(quoted.text).toContain("[email]");
    expect(quoted.text).toContain("[phone]");
    expect(quoted.text).not.toContain("grace@example.com");
    const thread = Array.from({ length: 6 }, (_, i) => ({ ...message(`Card ${i}: 4111 1111 1111 1111, mail bob${i}@example.org`, `t${i}`), threadId: "root", where: "thread in #ops", direct: false }));
    const summarised = buildInjection(thread);
    expect(summarised.text).not.toMatch(/4111|@example\.org/);
    // Turned off, the text is as written.
    expect(buildInjection([message("grace@example.com")], { pii: { email: false } }).text).toContain("grace@example.com");
  });

  test("an agent's inbox as its run is shown it (blocking messages included) carries no PII", async () => {
    const { t, departmentId, admin } = await demoSquad();
    const writer = await agent(t, AGENTS.writer);
    const dm = await admin.mutation(api.channels.openDm, { departmentId, participantKeys: [writer.sessionKey] });
    await admin.mutation(api.channelMessages.post, { channelId: dm, body: "Call me on +1 415 555 0132 or ada@example.com", blocking: true });
    const taskId = await createTask(admin, departmentId);
    const runId = await insertRun(t, AGENTS.writer, taskId);
    const shown = await t.query(internal.tools.messaging.inboxReadTool, { runId });
    expect(shown.map((m) => m.body)).toEqual(["Call me on [phone] or [email]"]);
    // The message itself is stored as written: only what a model is shown is redacted.
    expect((await t.run(async (ctx) => await ctx.db.query("channelMessages").collect())).map((m) => m.body)).toEqual(["Call me on +1 415 555 0132 or ada@example.com"]);
  });
});
