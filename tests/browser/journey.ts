/**
 * What the browser journeys share: one `npm start` stack and one Chromium per
 * test file, pages that record uncaught errors, signing in (through the form,
 * or over HTTP for a Convex client), bounded polling, the task drawer's
 * composer, and where screenshots go (tests/output/, git-ignored).
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import axe from "axe-core";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { expect } from "vitest";
import { api } from "../../convex/_generated/api";
import { adminClient, passwordRoute } from "../backend/helpers";
import { CHROMIUM_ARGS, chromiumPath } from "./chromium";
import { PROJECT_ROOT, startStack, type Stack } from "./stack";

export const OUTPUT_DIR = path.join(PROJECT_ROOT, "tests/output");
/** The window sizes every screen is checked at: a large monitor, a laptop (a page's default) and a phone. */
export const LARGE = { width: 1440, height: 900 };
export const WIDE = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const EVERY_SIZE = [LARGE, WIDE, PHONE] as const;
/** Default bound on every wait for something to show up (live updates take well under a second). */
export const WAIT_MS = 15_000;

/** Where a screenshot named `name` (e.g. "board.png") goes; the folder is made if missing. */
export function screenshotPath(name: string): string {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  return path.join(OUTPUT_DIR, name);
}

/** Polls `read` until `done` accepts its value (bounded); returns that value, or fails with the last one. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  return last;
}

/** The email a journey gives `name` ("Ada" → ada@example.com). */
export function emailOf(name: string): string {
  return `${name.toLowerCase().replace(/\s+/g, ".")}@example.com`;
}

/** The personal password a journey gives `name`. */
export function passwordOf(name: string): string {
  return `${name} personal password`;
}

/** Fills the sign-in form already on `page` and submits it; waits for nothing. */
export async function fillSignIn(page: Page, email: string, password: string): Promise<void> {
  const form = page.getByTestId("signin-form");
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password", { exact: true }).fill(password);
  await form.getByRole("button", { name: "Sign in" }).click();
}

export interface PageOptions {
  /** Prefixes this page's errors in `pageErrors` (e.g. "Ada"). */
  who?: string;
  viewport?: { width: number; height: number };
  /** The page's default timeout for waits and actions. */
  timeoutMs?: number;
  /** Also record `console.error` (React reports its warnings there). */
  consoleErrors?: boolean;
}

export interface Journey {
  stack: Stack;
  browser: Browser;
  password: string;
  /** Uncaught errors (and, where asked, console errors) in any page: a journey that "passes" while React throws is not a pass. */
  pageErrors: string[];
  /** A page in a browser context of its own (its own cookies and storage: its own person). */
  newPage(options?: PageOptions): Promise<Page>;
  /**
   * Makes sure `name` has an account: the first person becomes the owner
   * through the first-run setup (with the stack's WebUI password), everyone
   * after is invited by the owner into the demo department with `role`.
   */
  ensurePerson(name: string, role?: "admin" | "member" | "viewer"): Promise<void>;
  /** Records that `name` already has an account (made through the UI), with the journey's email and password for them. */
  adoptPerson(name: string): void;
  /** Opens the app, signs in as `name` (an account made if needed), and waits for the board, its cards and the roster. */
  signIn(page: Page, name: string): Promise<void>;
  /** A Convex HTTP client signed in as `name`, through the same endpoint the sign-in screen uses. */
  clientFor(name: string): Promise<ConvexHttpClient>;
  /** A Convex HTTP client with the deployment's admin key (for internal functions). */
  adminClient(): ConvexHttpClient;
  /** Closes the pages' contexts, the browser and the stack. Safe to call twice. */
  close(): Promise<void>;
}

/** Starts the `npm start` stack with `password` and a headless Chromium. */
export async function startJourney(options: { password: string; env?: Record<string, string> }): Promise<Journey> {
  const { password } = options;
  const stack = await startStack(options);
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  } catch (error) {
    await stack.stop();
    throw error;
  }
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const people: string[] = [];

  // One sign-in per person: tokens last an hour, and repeated sign-ins would meet the rate limit.
  const tokens = new Map<string, string>();

  async function tokenFor(name: string): Promise<string> {
    const known = tokens.get(name);
    if (known !== undefined) return known;
    const result = await passwordRoute(stack.siteUrl, { flow: "signIn", email: emailOf(name), password: passwordOf(name) });
    if (result.status !== 200) throw new Error(`Sign-in of ${name} failed: ${result.status} ${JSON.stringify(result.body)}`);
    tokens.set(name, result.body.token);
    return result.body.token;
  }

  async function ensurePerson(name: string, role: "admin" | "member" | "viewer" = "member"): Promise<void> {
    if (people.includes(name)) return;
    const body: Record<string, string> = { flow: "signUp", email: emailOf(name), password: passwordOf(name), name };
    if (people.length === 0) {
      body.setupPassword = password;
    } else {
      const owner = new ConvexHttpClient(stack.url);
      owner.setAuth(await tokenFor(people[0]));
      const [department] = await owner.query(api.departments.listMine, {});
      body.inviteToken = (await owner.mutation(api.invites.create, { departmentId: department._id, email: emailOf(name), role })).token;
    }
    const result = await passwordRoute(stack.siteUrl, body);
    if (result.status !== 200) throw new Error(`Account for ${name} failed: ${result.status} ${JSON.stringify(result.body)}`);
    people.push(name);
  }

  return {
    stack,
    browser,
    password,
    pageErrors,

    async newPage({ who, viewport = WIDE, timeoutMs = WAIT_MS, consoleErrors = true } = {}) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(timeoutMs);
      const prefix = who === undefined ? "" : `${who}: `;
      page.on("pageerror", (error) => pageErrors.push(`${prefix}${error.name}: ${error.message}`));
      if (consoleErrors) {
        page.on("console", (message) => {
          if (message.type() === "error") pageErrors.push(`${prefix}console.error: ${message.text()}`);
        });
      }
      return page;
    },

    ensurePerson,

    adoptPerson(name) {
      if (!people.includes(name)) people.push(name);
    },

    async signIn(page, name) {
      await ensurePerson(name);
      await page.goto(stack.appUrl);
      await page.getByTestId("signin-form").getByLabel("Email").waitFor();
      await fillSignIn(page, emailOf(name), passwordOf(name));
      await page.getByTestId("board").waitFor();
      await page.getByTestId("task-card").first().waitFor();
      await page.getByTestId("roster-agent").first().waitFor();
    },

    async clientFor(name) {
      await ensurePerson(name);
      const client = new ConvexHttpClient(stack.url);
      client.setAuth(await tokenFor(name));
      return client;
    },

    adminClient() {
      return adminClient(stack.url, readFileSync(path.join(stack.dataDir, "admin-key"), "utf8").trim());
    },

    async close() {
      for (const context of contexts.splice(0)) await context.close().catch(() => {});
      await browser.close().catch(() => {});
      await stack.stop();
    },
  };
}

/** A journey with Ada (the owner) and Grace (a member of the demo department), each signed in on a page of her own. */
export async function startJourneyOfTwo(password: string): Promise<{ journey: Journey; ada: Page; grace: Page }> {
  const journey = await startJourney({ password });
  try {
    const ada = await journey.newPage({ who: "Ada" });
    await journey.signIn(ada, "Ada");
    const grace = await journey.newPage({ who: "Grace" });
    await journey.signIn(grace, "Grace");
    return { journey, ada, grace };
  } catch (error) {
    await journey.close();
    throw error;
  }
}

// ---------------------------------------------------------------- accessibility

/** The axe-core rule tags of WCAG 2.1 A and AA (colour contrast included). */
const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * Runs axe-core's WCAG 2.1 AA rules on what `page` shows now and returns one
 * line per failing element ("rule: selector — summary"), so a failing
 * expectation says what to fix. axe is injected once per document.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate(async (tags) => {
    const found = await (window as unknown as { axe: typeof axe }).axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
    return found.violations.flatMap((rule) =>
      rule.nodes.map((node) => `${rule.id}: ${node.target.join(" ")} — ${(node.failureSummary ?? "").split("\n").slice(1).join(" ").trim()}`),
    );
  }, WCAG_21_AA);
  return violations;
}

/** One way a screen is seen: the system's colour scheme and the window's size. */
export type Look = { colorScheme: "light" | "dark"; size: { width: number; height: number } };

/** Puts `page` in `look`. */
export async function showLook(page: Page, { colorScheme, size }: Look): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize(size);
}

/**
 * Waits until what `page` shows has settled: the drawer sliding in, colours
 * following the media query through CSS transitions (which a loaded machine
 * runs late), so a screenshot and axe see the end state. Endless animations
 * (a skeleton's pulse) are not waited for.
 */
export async function settled(page: Page): Promise<void> {
  await page.waitForTimeout(300);
  await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== "running" || animation.effect?.getComputedTiming().endTime === Infinity));
}

/**
 * A screen in light and in dark (in that order), each at every one of
 * `sizes`: `show` puts it on a page in the look it is given (`showLook`,
 * then whatever opens the screen) and returns that page; once it settled it
 * is screenshotted as `<name>-<light|dark>-<width>.png` and axe-core checks
 * it. Returns axe's findings by "<name> <scheme> <width>": a test expects {}.
 */
export async function auditLooks(name: string, show: (look: Look) => Promise<Page>, sizes: readonly Look["size"][] = EVERY_SIZE): Promise<Record<string, string[]>> {
  const failures: Record<string, string[]> = {};
  for (const colorScheme of ["light", "dark"] as const) {
    for (const size of sizes) {
      const page = await show({ colorScheme, size });
      await settled(page);
      await page.screenshot({ path: screenshotPath(`${name}-${colorScheme}-${size.width}.png`) });
      const violations = await accessibilityViolations(page);
      if (violations.length > 0) failures[`${name} ${colorScheme} ${size.width}`] = violations;
    }
  }
  return failures;
}

/** The texts among `locator`'s elements that are cut off sideways (an ellipsis or overflow): what a layout test expects to be none. */
export async function cutTexts(locator: Locator): Promise<string[]> {
  return await locator.evaluateAll((elements) =>
    elements.filter((element) => element.scrollWidth > element.clientWidth).map((element) => `${element.textContent ?? ""} (${element.scrollWidth} > ${element.clientWidth} px)`),
  );
}

// ---------------------------------------------------------------- the task drawer

export const drawer = (page: Page) => page.getByTestId("task-drawer");
export const composer = (page: Page) => drawer(page).getByRole("combobox", { name: "Message" });

export function messageIn(page: Page, content: string): Locator {
  return drawer(page).getByTestId("message").filter({ hasText: content });
}

/** Types `before`, then `@` + `query`, picks `name` from the mention list, then types `after`. */
export async function writeWithMention(page: Page, before: string, query: string, name: string, after: string): Promise<void> {
  const box = composer(page);
  await box.click();
  await box.pressSequentially(`${before}@${query}`);
  const list = page.getByRole("listbox", { name: "People to mention" });
  await list.waitFor();
  await expect(box.getAttribute("aria-expanded")).resolves.toBe("true");
  await list.getByRole("option", { name }).click();
  await list.waitFor({ state: "detached" });
  await expect(box.inputValue()).resolves.toBe(`${before}@${name} `);
  await box.pressSequentially(after);
}

/** Sends what the composer holds; resolves once the composer has emptied (the mutation resolved). */
export async function send(page: Page, content: string): Promise<Locator> {
  await drawer(page).getByRole("button", { name: "Send" }).click();
  await until(() => composer(page).inputValue(), (value) => value === "", "the composer to clear");
  return messageIn(page, content);
}

export async function closeDrawer(page: Page): Promise<void> {
  await drawer(page).getByRole("button", { name: "Close task" }).click();
  await drawer(page).waitFor({ state: "detached" });
}
