/** Where the browser tests find Chromium: MAESTRO_CHROMIUM, else Debian's package. */
export function chromiumPath(): string {
  return process.env.MAESTRO_CHROMIUM ?? "/usr/bin/chromium";
}

/** Flags for Chromium on a machine with no network and no GPU. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
