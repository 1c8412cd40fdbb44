/**
 * Maestro's own keys are secrets to the scanner: every format it mints
 * (lib/secrets/minted) is a rule, and every place that mints a key mints it
 * from that table. tests/backend/agentBoundary.test.ts pastes them on every
 * path in and out, with a hijacked model writing them back.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { generateInviteToken } from "../../convex/lib/accounts";
import { generateApiKey, isApiKeyShape } from "../../convex/lib/apiKeys";
import { ADMIN_KEY, MINTED_KEY_FORMATS, mintedKeyBytes, mintKey, REDACTED, ruleScanner, scanUserText, SECRET_RULES } from "../../convex/lib/secrets";
import { newWebhookSecret } from "../../convex/lib/webhooks";

const redact = (text: string) => scanUserText(text, { maxChars: 4000, enabled: true, timeoutMs: 1000 }).text;
const ROOT = path.resolve(import.meta.dirname, "../..");

describe("keys Maestro mints", () => {
  test.each(MINTED_KEY_FORMATS.map((format) => [format.id, format] as const))("%s: a freshly minted key is a rule of the scanner and is redacted wherever it stands", (_id, format) => {
    expect(SECRET_RULES.map((rule) => rule.id)).toContain(format.id);
    for (let i = 0; i < 20; i++) {
      const key = mintKey(format, randomBytes(mintedKeyBytes(format)));
      expect(key.startsWith(format.prefix)).toBe(true);
      expect(key.length).toBe(format.prefix.length + format.length);
      for (const text of [key, `here: ${key}`, `export KEY="${key}"`, `(${key}).`, `${key}\nsecond line`]) {
        const out = redact(text);
        expect(out).not.toContain(key.slice(format.prefix.length));
        expect(out).toContain(REDACTED);
      }
    }
  });

  test("the agent API key, the webhook secret, the invite token and the offline backend's admin key are minted from the table", () => {
    const key = generateApiKey();
    expect(isApiKeyShape(key)).toBe(true);
    expect(ruleScanner.scan(`my key is ${key}`).map((f) => f.rule)).toContain("maestro-agent-key");
    expect(ruleScanner.scan(newWebhookSecret()).map((f) => f.rule)).toContain("maestro-webhook-secret");
    expect(ruleScanner.scan(`join us: https://maestro.example/?invite=${generateInviteToken()}`).map((f) => f.rule)).toContain("maestro-invite-token");
    const admin = `maestro-local|${randomBytes(24).toString("hex")}`; // the shape keys minted before the table had
    expect(ruleScanner.scan(`CONVEX_ADMIN_KEY ${admin}`).map((f) => f.rule)).toContain(ADMIN_KEY.id);
    // The backend mints it with mintKey(ADMIN_KEY, …), not a format of its own.
    const server = readFileSync(path.join(ROOT, "tools/local-backend/server.ts"), "utf8");
    expect(server).toContain("mintKey(ADMIN_KEY");
    expect(server).not.toMatch(/`maestro-local\|/);
  });

  test("look-alikes that are not keys stay", () => {
    for (const text of ["mk_short", "the mk_ prefix", "maestro-local|xyz", "maestro-local-backend", "bookmark_abcdefghijklmnopqrstuvwxyzabcdefghijklmn"]) expect(redact(text)).toBe(text);
  });
});
