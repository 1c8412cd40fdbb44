/**
 * The #maestro chat pane, live between two people in real browsers against
 * `npm start`'s stack: a human's post shows in the other browser at once,
 * and a message carrying a (fake) AWS key is stored and shown redacted in both.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Page } from "playwright-core";
import { screenshotPath, startJourney, type Journey } from "./journey";

const FAKE_AWS_KEY = "AKIAIOSFODNN7EXAMPLE";

let journey: Journey;
let ada: Page;
let grace: Page;

beforeAll(async () => {
  journey = await startJourney({ password: "chat-test-password" });
  ada = await journey.newPage({ who: "Ada" });
  await journey.signIn(ada, "Ada");
  grace = await journey.newPage({ who: "Grace" });
  await journey.signIn(grace, "Grace");
});

afterAll(async () => {
  await journey?.close();
});

const pane = (page: Page) => page.getByTestId("chat-pane");
const chatMessage = (page: Page, text: string) => pane(page).getByTestId("chat-message").filter({ hasText: text });

async function post(page: Page, text: string) {
  const box = pane(page).getByRole("textbox", { name: "Message #maestro" });
  await box.fill(text);
  await pane(page).getByRole("button", { name: "Send" }).click();
}

describe("#maestro in the browser", () => {
  test("a human's post appears in the other browser, as @human", async () => {
    await post(ada, "Morning squad, standup in 10");
    await chatMessage(ada, "Morning squad, standup in 10").waitFor();
    await chatMessage(grace, "Morning squad, standup in 10").waitFor();
    await expect(chatMessage(grace, "Morning squad, standup in 10").getAttribute("data-author-kind")).resolves.toBe("human");
    await expect(chatMessage(grace, "Morning squad, standup in 10").textContent()).resolves.toContain("@human");
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
});
