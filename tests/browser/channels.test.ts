/**
 * Channels, threads and DMs in a real browser against `npm start`'s stack:
 * Ada creates a channel and posts; Grace, in her own browser, sees the
 * unread badge, opens the channel (the badge clears) and replies in a
 * thread; Ada sees the reply count live; a DM from Ada reaches only Grace.
 */
import { crc32, deflateSync } from "node:zlib";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { screenshotPath, startJourneyOfTwo, until, type Journey } from "./journey";

let journey: Journey;
let ada: Page;
let grace: Page;

beforeAll(async () => {
  ({ journey, ada, grace } = await startJourneyOfTwo("channels-test-password"));
});

afterAll(async () => {
  await journey?.close();
});

const rows = (page: Page) => page.getByTestId("channel-row");

/** A real PNG (solid colour, `size`×`size`), so the browser has an image to decode. */
function png(size: number, [r, g, b]: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => [r, g, b]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0))]);
}

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
    await until(async () => (await grace.getByTestId("nav-unread").allTextContents())[0] ?? null, (t) => t === "1", "Grace's unread badge");
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

  test("files: attach an image and a Markdown file, the other client sees a thumbnail and a chip that downloads; a refused type never uploads", async () => {
    await ada.getByTestId("nav-channels").click();
    await rows(ada).filter({ hasText: "#launch-plan" }).click();
    const view = ada.getByTestId("channel-view");
    await view.getByTestId("attach-input").setInputFiles([
      { name: "mock.png", mimeType: "image/png", buffer: png(48, [79, 70, 229]) },
      { name: "plan.md", mimeType: "text/markdown", buffer: Buffer.from("# Launch plan\n\n- hero copy\n- screenshots\n") },
      { name: "page.html", mimeType: "text/html", buffer: Buffer.from("<h1>no</h1>") },
    ]);
    const pending = view.getByTestId("pending-file");
    await until(async () => (await pending.allTextContents()).join(" | "), (t) => t.includes("image") && t.includes("ready") && t.includes("cannot be attached"), "uploads to finish");
    await view.getByRole("button", { name: "Remove page.html" }).click();
    await ada.getByLabel("Message #launch-plan").fill("Mock and plan attached");
    await ada.getByLabel("Message #launch-plan").press("Enter");
    await until(async () => view.getByTestId("pending-file").count(), (n) => n === 0, "the composer to clear");

    const message = grace.getByTestId("channel-message").filter({ hasText: "Mock and plan attached" });
    await grace.getByTestId("nav-channels").click();
    await rows(grace).filter({ hasText: "#launch-plan" }).click();
    await message.waitFor();
    const image = message.getByRole("img", { name: "mock.png" });
    await until(async () => image.evaluate((el) => (el as HTMLImageElement).naturalWidth), (w) => w === 48, "the thumbnail to load");
    const chip = message.getByRole("link", { name: /plan\.md/ });
    expect(await chip.getAttribute("download")).toBe("plan.md");
    const href = (await chip.getAttribute("href"))!;
    const served = await grace.evaluate(async (url) => {
      const response = await fetch(url);
      return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
    }, href);
    expect(served).toEqual({ status: 200, type: "text/markdown", text: "# Launch plan\n\n- hero copy\n- screenshots\n" });
    await grace.screenshot({ path: screenshotPath("channels-files.png") });
    expect(journey.pageErrors).toEqual([]);
  });

  test("the figures page charts the department's messaging", async () => {
    await ada.getByTestId("nav-figures").click();
    await until(async () => new URL(ada.url()).pathname, (p) => p === "/d/product/figures", "the figures address");
    const page = ada.getByTestId("figures-page");
    await page.getByTestId("chart-per-day").locator(".recharts-wrapper").waitFor();
    // Posts made in this journey are on today's bar; Grace has read some.
    await until(async () => page.getByTestId("chart-per-day").locator(".recharts-bar-rectangle").count(), (n) => n >= 2, "per-day bars");
    await page.getByTestId("chart-injection").waitFor();
    expect(await page.getByTestId("median-time-to-read").textContent()).not.toContain("—");
    await ada.screenshot({ path: screenshotPath("figures.png"), fullPage: true });
    expect(journey.pageErrors).toEqual([]);
  });
});
