/**
 * The #maestro chat pane, live between two people in real browsers against
 * `npm start`'s stack: a human's post shows in the other browser at once,
 * and a message carrying a (fake) AWS key is stored and shown redacted in both.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Page } from "playwright-core";
import { screenshotPath, startJourneyOfTwo, until, type Journey } from "./journey";

const FAKE_AWS_KEY = "AKIAIOSFODNN7EXAMPLE";

let journey: Journey;
let ada: Page;
let grace: Page;

beforeAll(async () => {
  ({ journey, ada, grace } = await startJourneyOfTwo("chat-test-password"));
});

afterAll(async () => {
  await journey?.close();
});

const pane = (page: Page) => page.getByTestId("chat-pane");
const chatMessage = (page: Page, text: string) => pane(page).getByTestId("chat-message").filter({ hasText: text });

async function post(page: Page, text: string) {
  const box = pane(page).getByLabel("Message #maestro");
  await box.fill(text);
  await pane(page).getByRole("button", { name: "Send" }).click();
}

describe("#maestro in the browser", () => {
  test("a human's post appears in the other browser, as a person's (named, not an @human chip)", async () => {
    await post(ada, "Morning squad, standup in 10");
    await chatMessage(ada, "Morning squad, standup in 10").waitFor();
    await chatMessage(grace, "Morning squad, standup in 10").waitFor();
    await expect(chatMessage(grace, "Morning squad, standup in 10").getAttribute("data-author-kind")).resolves.toBe("human");
    await expect(chatMessage(grace, "Morning squad, standup in 10").getByTestId("chat-person").textContent()).resolves.toContain("Ada");
    await expect(chatMessage(grace, "Morning squad, standup in 10").textContent()).resolves.not.toContain("@human");
  });

  test("a message with a fake AWS key is redacted in both browsers, with the note once", async () => {
    await post(grace, `deploy with ${FAKE_AWS_KEY} please`);
    const redacted = "deploy with [redacted] please (Note: content redacted by scanner)";
    await chatMessage(ada, redacted).waitFor();
    await chatMessage(grace, redacted).waitFor();
    for (const page of [ada, grace]) {
      const text = await pane(page).textContent();
      expect(text).not.toContain(FAKE_AWS_KEY);
      expect(text?.split("(Note: content redacted by scanner)").length).toBe(2);
    }
    await pane(grace).screenshot({ path: screenshotPath("chat-redacted.png") });
    expect(journey.pageErrors).toEqual([]);
  });

  test("two people post; a third client sees both names, and all three faces in the header", async () => {
    const ben = await journey.newPage({ who: "Ben" });
    await journey.signIn(ben, "Ben");
    await post(ada, "Ada: copy is in review");
    await post(grace, "Grace: mock is ready");
    for (const [text, name] of [["Ada: copy is in review", "Ada"], ["Grace: mock is ready", "Grace"]]) {
      const message = chatMessage(ben, text);
      await message.waitFor();
      await expect(message.getByTestId("chat-person").textContent()).resolves.toContain(name);
      await expect(message.getByTestId("chat-author").count()).resolves.toBe(0);
    }
    const faces = ben.getByTestId("presence");
    await until(
      async () => ((await faces.count()) === 0 ? "" : ((await faces.getAttribute("aria-label")) ?? "")),
      (label) => ["Ada", "Grace", "Ben (you)"].every((name) => label.includes(name)),
      "Ada, Grace and Ben in Ben's header",
    );
    await ben.screenshot({ path: screenshotPath("chat-people.png") });
    expect(journey.pageErrors).toEqual([]);
  });
});
