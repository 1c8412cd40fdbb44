import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { chromiumPath } from "./tests/browser/chromium.ts";

// Browser journeys need Debian's Chromium. Without it they are left out, and
// said so; CI sets MAESTRO_REQUIRE_BROWSER=1 so a missing browser fails the run.
const chromium = chromiumPath();
const haveBrowser = existsSync(chromium);
if (!haveBrowser) {
  const message = `Chromium not found at ${chromium} (install it: apt-get install -y chromium, or set MAESTRO_CHROMIUM).`;
  if (process.env.MAESTRO_REQUIRE_BROWSER === "1") throw new Error(`${message} MAESTRO_REQUIRE_BROWSER=1, so this is a failure.`);
  console.warn(`\n  Browser tests skipped: ${message}\n`);
}

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "convex",
          environment: "edge-runtime",
          include: ["tests/convex/**/*.test.ts"],
          server: { deps: { inline: ["convex-test"] } },
          // Password hashing (scrypt) and whole-table checks are slow on a busy 2-core machine.
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: "react",
          environment: "jsdom",
          include: ["tests/react/**/*.test.{ts,tsx}"],
        },
      },
      {
        test: {
          name: "backend",
          environment: "node",
          include: ["tests/backend/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      ...(haveBrowser
        ? [
            {
              test: {
                name: "browser",
                environment: "node",
                include: ["tests/browser/**/*.test.ts"],
                testTimeout: 180_000,
                hookTimeout: 180_000,
                fileParallelism: false,
              },
            },
          ]
        : []),
    ],
  },
});
