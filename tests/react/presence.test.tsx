import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_FACES, PresenceFaces } from "../../src/shell/PresenceAvatars";

afterEach(cleanup);

const person = (userId: string, name: string, online = true) => ({ userId, name, online });

describe("PresenceFaces", () => {
  it("shows online people only, you marked, with everyone named for screen readers", () => {
    render(<PresenceFaces meId="u1" people={[person("u1", "Ada Lovelace"), person("u2", "Grace"), person("u3", "Gone", false)]} />);
    const group = screen.getByTestId("presence");
    expect(group.getAttribute("aria-label")).toBe("Viewing now: Ada Lovelace (you), Grace");
    expect(screen.getAllByRole("img").map((img) => img.textContent)).toEqual(["AL", "GR"]);
    expect(screen.getByRole("img", { name: "Ada Lovelace (you)" })).toBeTruthy();
  });

  it("folds a crowd into +N, and shows nothing when no one is online", () => {
    const crowd = Array.from({ length: MAX_FACES + 2 }, (_, i) => person(`u${i}`, `Person ${i}`));
    const { unmount } = render(<PresenceFaces meId="u0" people={crowd} />);
    expect(screen.getAllByRole("img")).toHaveLength(MAX_FACES);
    expect(screen.getByText("+2")).toBeTruthy();
    unmount();
    render(<PresenceFaces meId="u0" people={[person("u9", "Offline", false)]} />);
    expect(screen.queryByTestId("presence")).toBeNull();
  });
});
