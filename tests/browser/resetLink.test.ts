/**
 * A way back in for someone who forgot their password (Maestro sends no
 * email): Ada (owner) makes a one-time reset link for Grace from Members;
 * Grace opens it, chooses a new password and is signed in with it; the
 * browser where she was still signed in is signed out; the link does
 * nothing a second time. Members and the reset page in light and dark at
 * 1440, 1280 and 390 px pass axe-core's WCAG 2.1 AA rules. Screenshots:
 * tests/output/reset-members-*.png, reset-page-*.png, reset-used-*.png.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { auditLooks, cutTexts, emailOf, fillSignIn, LARGE, passwordOf, showLook, startJourney, until, type Journey } from "./journey";

let journey: Journey;
const appAt = (address: string) => `${journey.stack.appUrl.replace(/\/$/, "")}${address}`;

beforeAll(async () => {
  journey = await startJourney({ password: "reset-link-test-password" });
  await journey.ensurePerson("Ada");
  await journey.ensurePerson("Grace", "member");
  await journey.ensurePerson("Vera", "viewer");
}, 240_000);

afterAll(async () => {
  await journey?.close();
});

async function signedIn(name: string, viewport = LARGE): Promise<Page> {
  const page = await journey.newPage({ who: name, viewport });
  await journey.signIn(page, name);
  return page;
}

describe("a reset link for a member who forgot her password", () => {
  test("an owner makes it in Members; it sets Grace's new password once and signs out her other browser", async () => {
    const ada = await signedIn("Ada");
    await ada.goto(appAt("/d/product/members"));
    const members = ada.getByRole("dialog", { name: /Members/ });
    await members.waitFor();
    // Not for herself: her own password is changed in Account.
    await expect(members.getByRole("button", { name: "Make reset link for Ada" }).count()).resolves.toBe(0);
    await members.getByRole("button", { name: "Make reset link for Grace" }).click();
    const linkBox = members.getByRole("textbox", { name: "Reset link for Grace" });
    await linkBox.waitFor();
    const link = await linkBox.inputValue();
    expect(link).toBe(`${journey.stack.appUrl.replace(/\/$/, "")}/?reset=${link.split("?reset=")[1]}`);
    expect(link).toMatch(/\?reset=mr_[a-z2-7]{52}$/);
    await members.getByText(/Maestro sends no email\. It sets a new password once, within 24 hours/).waitFor();
    const overlaps: string[] = [];
    const memberFailures = await auditLooks("reset-members", async (look) => {
      await showLook(ada, look);
      await linkBox.scrollIntoViewIfNeeded();
      // Names and emails are neither cut nor run under the buttons beside them.
      overlaps.push(...(await cutTexts(members.getByTestId("member-row").locator("p"))).map((cut) => `${look.size.width}: ${cut}`));
      return ada;
    });
    expect(memberFailures).toEqual({});
    expect(overlaps).toEqual([]);

    // Grace is signed in on her laptop; on another browser she opens the link.
    const laptop = await signedIn("Grace");
    const phone = await journey.newPage({ who: "Grace (reset)", viewport: LARGE });
    await phone.goto(link);
    const form = phone.getByTestId("reset-form");
    await form.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await form.getByText(`For ${emailOf("Grace")}.`, { exact: false }).waitFor();
    const pageFailures = await auditLooks("reset-page", async (look) => {
      await showLook(phone, look);
      return phone;
    });
    expect(pageFailures).toEqual({});
    await showLook(phone, { colorScheme: "light", size: LARGE });
    await form.getByLabel("Password", { exact: true }).fill("grace brand new password");
    await form.getByLabel("Confirm password").fill("grace brand new password");
    await form.getByRole("button", { name: "Set password and sign in" }).click();
    await phone.getByTestId("board").waitFor();
    // The link's token leaves the address once it is used (the board may show a moment before).
    await phone.waitForURL((url) => url.search === "", { timeout: 10_000 });

    // The laptop's session has ended.
    await until(
      async () => (await laptop.getByText("Your session has ended.").count()) + (await laptop.getByTestId("signin-form").count()),
      (n) => n > 0,
      "Grace's other browser to be signed out",
      20_000,
    );
    // The old password no longer works; the new one does.
    const fresh = await journey.newPage({ who: "Grace (again)", viewport: LARGE });
    await fresh.goto(journey.stack.appUrl);
    await fillSignIn(fresh, emailOf("Grace"), passwordOf("Grace"));
    await fresh.getByTestId("signin-form").getByRole("alert").getByText("Wrong email or password.").waitFor();
    await fillSignIn(fresh, emailOf("Grace"), "grace brand new password");
    await fresh.getByTestId("board").waitFor();

    // Once only.
    const again = await journey.newPage({ who: "Reuse", viewport: LARGE });
    await again.goto(link);
    await again.getByTestId("reset-invalid").getByText(/This reset link is not valid any more/).waitFor();
    const usedFailures = await auditLooks("reset-used", async (look) => {
      await showLook(again, look);
      return again;
    });
    expect(usedFailures).toEqual({});
    expect(journey.pageErrors.filter((e) => !/UNAUTHENTICATED|Sign in to continue|401/.test(e))).toEqual([]);
  }, 240_000);

  test("a viewer sees no reset button in Members", async () => {
    const vera = await signedIn("Vera");
    await vera.goto(appAt("/d/product/members"));
    const members = vera.getByRole("dialog", { name: /Members/ });
    await members.getByText("Grace").first().waitFor();
    await expect(members.getByRole("button", { name: /Make reset link/ }).count()).resolves.toBe(0);
  }, 120_000);
});
