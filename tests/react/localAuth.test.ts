// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { getAccessToken } from "../../src/auth/localAuth";
import { readSession, writeSession } from "../../src/auth/session";

const ORIGIN = "http://backend.test";
const HOUR = 3_600_000;

function stubRefresh(response: () => Response) {
  const fetchMock = vi.fn<(url: string, init?: RequestInit) => Promise<Response>>(() => Promise.resolve(response()));
  vi.stubGlobal("fetch", fetchMock);
  return fetchMock;
}

beforeEach(() => {
  localStorage.clear();
  writeSession({ token: "old", expiresAt: Date.now() + HOUR, name: "Ada" });
});
afterEach(() => vi.unstubAllGlobals());

describe("getAccessToken", () => {
  it("returns the stored token while it is fresh, without a request", async () => {
    const fetchMock = stubRefresh(() => new Response(null, { status: 500 }));
    expect(await getAccessToken(ORIGIN, false)).toBe("old");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("refreshes when Convex forces it and stores the new token", async () => {
    const expiresAt = Date.now() + 2 * HOUR;
    const fetchMock = stubRefresh(() => Response.json({ token: "new", expiresAt }));
    expect(await getAccessToken(ORIGIN, true)).toBe("new");
    expect(fetchMock).toHaveBeenCalledWith(`${ORIGIN}/maestro/auth/refresh`, {
      method: "POST",
      headers: { Authorization: "Bearer old" },
    });
    expect(readSession()).toEqual({ token: "new", expiresAt, name: "Ada" });
  });

  it("refreshes a token that is about to expire", async () => {
    writeSession({ token: "old", expiresAt: Date.now() + 1_000, name: "Ada" });
    stubRefresh(() => Response.json({ token: "new", expiresAt: Date.now() + HOUR }));
    expect(await getAccessToken(ORIGIN, false)).toBe("new");
  });

  it("signs out when the refresh is refused", async () => {
    stubRefresh(() => Response.json({ error: "Token expired." }, { status: 401 }));
    expect(await getAccessToken(ORIGIN, true)).toBeNull();
    expect(readSession()).toBeNull();
  });

  it("returns null when nobody is signed in", async () => {
    localStorage.clear();
    expect(await getAccessToken(ORIGIN, true)).toBeNull();
  });
});
