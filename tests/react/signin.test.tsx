// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { getFunctionName } from "convex/server";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthScreen, OwnerSetup, SignInScreen } from "../../src/auth/SignInScreen";
import { readSession, SESSION_KEY } from "../../src/auth/session";

const SITE = "http://site.test";

const queries = vi.hoisted(() => new Map<string, unknown>());
vi.mock("convex/react", () => ({
  useQuery: (query: never) => queries.get(getFunctionName(query)),
}));

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** Stubs `fetch` for POST /auth/password. */
function stubPasswordRoute(answer: () => Response) {
  const fetchMock = vi.fn<(url: string, init?: RequestInit) => Promise<Response>>(() => Promise.resolve(answer()));
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

beforeEach(() => {
  localStorage.clear();
  queries.clear();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("AuthScreen", () => {
  it("offers the owner setup on a fresh server, and sign-in once an owner exists", () => {
    queries.set("setup:status", { needsOwner: true, setupPasswordRequired: true });
    const { rerender } = render(<AuthScreen siteUrl={SITE} />);
    expect(screen.getByTestId("setup-form")).toBeTruthy();
    expect(screen.getByLabelText("Setup password")).toBeTruthy();
    queries.set("setup:status", { needsOwner: false, setupPasswordRequired: true });
    rerender(<AuthScreen siteUrl={SITE} />);
    expect(screen.getByTestId("signin-form")).toBeTruthy();
  });

  it("an invite link shows who invites you where, or says it is no longer valid", () => {
    queries.set("invites:preview", { departmentName: "Product Squad", email: "grace@example.com", role: "member" });
    // Inside the router, as the app has it: signing up takes the invite out of the address.
    const atInvite = () => (
      <MemoryRouter initialEntries={["/d/product?invite=tok"]}>
        <AuthScreen siteUrl={SITE} inviteToken="tok" />
      </MemoryRouter>
    );
    const { rerender } = render(atInvite());
    expect(screen.getByText(/You are invited as member, with the email grace@example.com/)).toBeTruthy();
    expect(screen.getByRole("button", { name: "Join Product Squad" })).toBeTruthy();
    queries.set("invites:preview", null);
    rerender(atInvite());
    expect(screen.getByRole("alert").textContent).toMatch(/not valid any more/);
    expect(screen.getByRole("link", { name: "Go to sign-in" }).getAttribute("href")).toBe("/d/product");
  });
});

describe("SignInScreen", () => {
  it("shows the server's error on a 401 and stores nothing", async () => {
    stubPasswordRoute(() => json({ error: "Wrong email or password." }, 401));
    render(<SignInScreen siteUrl={SITE} />);
    type("Email", "ada@example.com");
    type("Password", "nope nope");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Wrong email or password.");
    expect(localStorage.getItem(SESSION_KEY)).toBeNull();
  });

  it("says how long to wait when the server limits attempts", async () => {
    stubPasswordRoute(() => json({ error: "Too many sign-in attempts. Try again in 42 s.", retryAfterSeconds: 42 }, 429, { "Retry-After": "42" }));
    render(<SignInScreen siteUrl={SITE} />);
    type("Email", "ada@example.com");
    type("Password", "guess guess");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Too many sign-in attempts. Try again in 42 s.");
  });

  it("stores the session on success", async () => {
    const fetchMock = stubPasswordRoute(() => json({ token: "tok-123", refreshToken: "ref-1" }));
    render(<SignInScreen siteUrl={SITE} />);
    type("Email", "Ada@Example.com");
    type("Password", "correct horse");
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(readSession()).toEqual({ token: "tok-123", refreshToken: "ref-1", email: "ada@example.com" }));
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe(`${SITE}/auth/password`);
    expect(JSON.parse(String(init?.body))).toEqual({ flow: "signIn", email: "Ada@Example.com", password: "correct horse" });
  });
});

describe("OwnerSetup", () => {
  it("checks the new password locally before asking the server", async () => {
    const fetchMock = stubPasswordRoute(() => json({ token: "t", refreshToken: "r" }));
    render(<OwnerSetup siteUrl={SITE} setupPasswordRequired={false} />);
    expect(screen.getByText(/whoever opens it first becomes its owner/)).toBeTruthy();
    type("Your name", "Ada");
    type("Email", "ada@example.com");
    type("Password", "short");
    type("Confirm password", "short");
    fireEvent.click(screen.getByRole("button", { name: "Create owner account" }));
    expect((await screen.findByRole("alert")).textContent).toBe("A password needs at least 8 characters.");
    type("Password", "correct horse");
    type("Confirm password", "correct horsf");
    fireEvent.click(screen.getByRole("button", { name: "Create owner account" }));
    expect((await screen.findByRole("alert")).textContent).toBe("The two passwords differ.");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("sends the setup password with the sign-up", async () => {
    const fetchMock = stubPasswordRoute(() => json({ token: "t", refreshToken: "r" }));
    render(<OwnerSetup siteUrl={SITE} setupPasswordRequired />);
    type("Your name", "Ada");
    type("Email", "ada@example.com");
    type("Password", "correct horse");
    type("Confirm password", "correct horse");
    type("Setup password", "team-secret");
    fireEvent.click(screen.getByRole("button", { name: "Create owner account" }));
    await waitFor(() => expect(readSession()?.token).toBe("t"));
    expect(JSON.parse(String(fetchMock.mock.calls[0][1]?.body))).toEqual({
      flow: "signUp",
      name: "Ada",
      email: "ada@example.com",
      password: "correct horse",
      setupPassword: "team-secret",
    });
  });
});
