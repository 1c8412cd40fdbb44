import { expect, test } from "vitest";
import { agentSessionKey, slugify } from "../../convex/lib/names";

test("slugs and session keys", () => {
  expect(slugify("Dev Bot")).toBe("dev-bot");
  expect(slugify("  Zoë  the_Writer! ")).toBe("zoe-the-writer");
  expect(agentSessionKey("Jarvis", "product")).toBe("agent:jarvis:product");
});
