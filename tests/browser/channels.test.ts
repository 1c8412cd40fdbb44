/**
 * Channels, threads and DMs in a real browser against `npm start`'s stack:
 * Ada creates a channel and posts; Grace, in her own browser, sees the
 * unread badge, opens the channel (the badge clears) and replies in a
 * thread; Ada sees the reply count live; a DM from Ada reaches only Grace.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { screenshotPath, startJourney, until, WIDE, type Journey } from "./journey";

let journey: Journey;
let ada: Page;
let grace: Page;

beforeAll(async () => {
  journey = await startJourney({ password: "channels-test-password" });
  ada = await journey.newPage({ who: "Ada", viewport: WIDE, consoleErrors: true });
  await journey.signIn(ada, "Ada");
  await journey.ensurePerson("Grace");
  grace = await journey.newPage({ who: "Grace", viewport: WIDE, consoleErrors: true });
  await journey.signIn(grace, "Grace");
});

afterAll(async () => {
  await journey?.close();
});

const rows = (page: Page) => page.getByTestId("channel-row");

describe("channels", () => {
  test("create, post, unread badge on another client, thread reply seen live, then a DM", async () => {
    await ada.getByTestId("nav-channels").click();
    await ada.getByRole("button", { name: "Channel" }).click();
    const form = ada.getByTestId("new-channel-form");
    await form.getByLabel("Name").fill("Launch Plan");
    await form.getByLabel("Topic").fill("Everything about the launch");
    await form.getByRole("button", { name: "Create channel" }).click();
    await until(async () => new URL(ada.url()).pathname, (p) => /^\/d\/product\/channels\/.+/.test(p), "the channel's address");
    const view = ada.getByTestId("channel-view");
    await view.getByRole("button", { name: "Follow" }).or(view.getByRole("button", { name: "Unfollow" })).waitFor();

    // Grace follows it, from her own browser, at its address.
    await grace.goto(ada.url());
    await grace.getByTestId("channel-view").getByRole("button", { name: "Follow" }).click();
    await grace.getByTestId("channel-view").getByRole("button", { name: "Unfollow" }).waitFor();
    await grace.getByRole("link", { name: "Board" }).click();

    await ada.getByLabel("Message #launch-plan").fill("Kick-off at **10**, @Grace please bring the copy");
    await ada.getByLabel("Message #launch-plan").press("Enter");
    await ada.getByTestId("channel-message").filter({ hasText: "Kick-off at" }).waitFor();

    // Grace's header counts it; opening the channel clears it.
    await until(async () => (await grace.getByTestId("nav-unread").count()) > 0 ? await grace.getByTestId("nav-unread").textContent() : null, (t) => t === "1", "Grace's unread badge");
    await grace.getByTestId("nav-channels").click();
    await rows(grace).filter({ hasText: "#launch-plan" }).click();
    await grace.getByTestId("channel-message").filter({ hasText: "Kick-off at" }).waitFor();
    await until(async () => grace.getByTestId("nav-unread").count(), (n) => n === 0, "the badge to clear");

    // A thread reply from Grace shows on Ada's message, live.
    await grace.getByTestId("channel-message").filter({ hasText: "Kick-off at" }).getByRole("button", { name: "Reply in thread" }).click();
    await grace.getByTestId("thread-panel").getByLabel("Reply in thread").fill("Copy is ready");
    await grace.getByTestId("thread-panel").getByLabel("Reply in thread").press("Enter");
    await grace.getByTestId("thread-panel").getByTestId("channel-message").filter({ hasText: "Copy is ready" }).waitFor();
    await ada.getByTestId("channel-message").filter({ hasText: "Kick-off at" }).getByRole("button", { name: "1 reply" }).waitFor();
    await ada.screenshot({ path: screenshotPath("channels-ada.png") });

    // A DM from Ada reaches Grace, and lists under Direct messages for her.
    await ada.getByRole("button", { name: "DM" }).click();
    const dm = ada.getByTestId("new-dm-form");
    await dm.getByLabel(/Grace/).check();
    await dm.getByRole("button", { name: "Open DM" }).click();
    await ada.getByLabel("Message Grace").fill("Can you review the hero text?");
    await ada.getByLabel("Message Grace").press("Enter");
    const graceDm = rows(grace).filter({ hasText: "Ada" });
    await graceDm.waitFor();
    expect(await graceDm.getByTestId("unread-badge").textContent()).toBe("1");
    await graceDm.click();
    await grace.getByTestId("channel-message").filter({ hasText: "Can you review the hero text?" }).waitFor();
    await grace.screenshot({ path: screenshotPath("channels-grace-dm.png") });
    expect(journey.pageErrors).toEqual([]);
  });
});
