// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SignInScreen } from "../../src/auth/SignInScreen";
import { readSession, SESSION_KEY } from "../../src/auth/session";

const ORIGIN = "http://backend.test";

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/** Stubs `fetch` with a config answer and a sign-in answer. */
function stubBackend({ passwordRequired, signin }: { passwordRequired: boolean; signin?: () => Response }) {
  // The app always calls fetch with a string URL.
  const fetchMock = vi.fn<(url: string, init?: RequestInit) => Promise<Response>>((url) => {
    if (url === `${ORIGIN}/maestro/auth/config`) return Promise.resolve(json({ passwordRequired }));
    if (url === `${ORIGIN}/maestro/auth/signin` && signin) return Promise.resolve(signin());
    return Promise.resolve(json({ error: "unexpected" }, 404));
  });
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

function fillName(name: string) {
  fireEvent.change(screen.getByLabelText("Your name"), { target: { value: name } });
}

beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("SignInScreen", () => {
  it("shows the product and a password field when the server wants one", async () => {
    const fetchMock = stubBackend({ passwordRequired: true });
    render(<SignInScreen origin={ORIGIN} />);

    expect(screen.getByText("Maestro")).toBeTruthy();
    expect(screen.getByTestId("signin-form")).toBeTruthy();
    await waitFor(() => expect(fetchMock).toHaveBeenCalledWith(`${ORIGIN}/maestro/auth/config`, expect.anything()));
    expect(screen.getByLabelText("Password")).toBeTruthy();
    expect(screen.queryByText(/No password is set on this server/)).toBeNull();
  });

  it("hides the password field and warns when the server has no password", async () => {
    stubBackend({ passwordRequired: false });
    render(<SignInScreen origin={ORIGIN} />);

    expect(
      await screen.findByText("No password is set on this server — anyone who can reach it can sign in."),
    ).toBeTruthy();
    expect(screen.queryByLabelText("Password")).toBeNull();
  });

  it("shows the server's error on a 401 and stores nothing", async () => {
    stubBackend({ passwordRequired: true, signin: () => json({ error: "Wrong password." }, 401) });
    render(<SignInScreen origin={ORIGIN} />);

    fillName("Ada");
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "nope" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));

    expect((await screen.findByRole("alert")).textContent).toBe("Wrong password.");
    expect(localStorage.getItem(SESSION_KEY)).toBeNull();
  });

  it("stores the session on success", async () => {
    const expiresAt = Date.now() + 3_600_000;
    const fetchMock = stubBackend({ passwordRequired: true, signin: () => json({ token: "tok-123", expiresAt }) });
    render(<SignInScreen origin={ORIGIN} />);

    fillName("  Ada  ");
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "secret" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));

    await waitFor(() => expect(localStorage.getItem(SESSION_KEY)).not.toBeNull());
    expect(JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null")).toEqual({ token: "tok-123", expiresAt, name: "Ada" });
    expect(readSession()).toEqual({ token: "tok-123", expiresAt, name: "Ada" });

    const signinCall = fetchMock.mock.calls.find(([url]) => url.endsWith("/signin"));
    expect(JSON.parse(signinCall?.[1]?.body as string)).toEqual({ name: "Ada", password: "secret" });
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
