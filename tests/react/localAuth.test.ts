// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { getAccessToken } from "../../src/auth/localAuth";
import { readSession, writeSession } from "../../src/auth/session";

const CONVEX_URL = "http://backend.test";
const HOUR = 3_600_000;

/** A token shaped like Convex Auth's, expiring at `expMs`. */
function jwt(expMs: number, tag = "t"): string {
  const payload = btoa(JSON.stringify({ exp: Math.floor(expMs / 1000), tag })).replace(/=+$/, "");
  return `header.${payload}.sig-${tag}`;
}

/** Stubs `fetch` for ConvexHttpClient's action call, answering `value` (or an HTTP error). */
function stubAction(answer: () => Response) {
  const fetchMock = vi.fn<(url: string, init?: RequestInit) => Promise<Response>>(() => Promise.resolve(answer()));
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

const success = (value: unknown) => Response.json({ status: "success", value, logLines: [] });

let fresh: string;

beforeEach(() => {
  localStorage.clear();
  fresh = jwt(Date.now() + HOUR, "old");
  writeSession({ token: fresh, refreshToken: "refresh-1", email: "ada@example.com" });
});
afterEach(() => vi.unstubAllGlobals());

describe("getAccessToken", () => {
  it("returns the stored token while it is fresh, without a request", async () => {
    const fetchMock = stubAction(() => new Response(null, { status: 500 }));
    expect(await getAccessToken(CONVEX_URL, false)).toBe(fresh);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("refreshes through Convex Auth's signIn action when Convex forces it, and stores the new pair", async () => {
    const next = jwt(Date.now() + 2 * HOUR, "new");
    const fetchMock = stubAction(() => success({ tokens: { token: next, refreshToken: "refresh-2" } }));
    expect(await getAccessToken(CONVEX_URL, true)).toBe(next);
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe(`${CONVEX_URL}/api/action`);
    expect(JSON.parse(String(init?.body))).toMatchObject({ path: "auth:signIn", args: [{ refreshToken: "refresh-1" }] });
    expect(readSession()).toEqual({ token: next, refreshToken: "refresh-2", email: "ada@example.com" });
  });

  it("refreshes a token that is about to expire, once even when asked twice at the same time", async () => {
    writeSession({ token: jwt(Date.now() + 1_000), refreshToken: "refresh-1", email: "ada@example.com" });
    const next = jwt(Date.now() + HOUR, "new");
    const fetchMock = stubAction(() => success({ tokens: { token: next, refreshToken: "refresh-2" } }));
    expect(await Promise.all([getAccessToken(CONVEX_URL, false), getAccessToken(CONVEX_URL, false)])).toEqual([next, next]);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("signs out when the server refuses the refresh token", async () => {
    stubAction(() => success({ tokens: null }));
    expect(await getAccessToken(CONVEX_URL, true)).toBeNull();
    expect(readSession()).toBeNull();
  });

  it("keeps the session when the server cannot be reached, so a reconnect can retry", async () => {
    vi.stubGlobal("fetch", vi.fn(() => Promise.reject(new TypeError("Failed to fetch"))));
    expect(await getAccessToken(CONVEX_URL, true)).toBeNull();
    expect(readSession()?.refreshToken).toBe("refresh-1");
  });

  it("returns null when nobody is signed in", async () => {
    localStorage.clear();
    expect(await getAccessToken(CONVEX_URL, true)).toBeNull();
  });
});
