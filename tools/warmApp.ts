/**
 * Warms the dev server before `npm start` prints the app's address: requests
 * the page and every module it imports (static and lazy), as a browser would,
 * so Vite has optimised the dependencies and transformed each module by the
 * time the first person opens the app. Without it the first page waits for
 * all of that (6.6 s cold on a 2-core machine).
 */

/** Modules in flight at once (the server transforms on one core per request anyway). */
const CONCURRENCY = 8;
/** More modules than the app has: a guard against a crawl that never ends. */
const MAX_MODULES = 3000;

const IMPORT_RE = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"'\s]+)["']/g;
const SCRIPT_RE = /<script[^>]*\ssrc="([^"]+)"/g;

/** The same-origin module URLs a module's text imports. */
export function importsOf(text: string, base: string, origin: string): string[] {
  const out: string[] = [];
  for (const pattern of [IMPORT_RE, SCRIPT_RE]) {
    for (const match of text.matchAll(pattern)) {
      const spec = match[1];
      if (!spec.startsWith("/") && !spec.startsWith(".")) continue;
      const url = new URL(spec, base);
      if (url.origin === origin) out.push(url.href);
    }
  }
  return out;
}

/** Crawls `appUrl`'s module graph; returns how many URLs were requested. */
export async function warmApp(appUrl: string): Promise<number> {
  const origin = new URL(appUrl).origin;
  const seen = new Set<string>([appUrl]);
  const queue = [appUrl];
  async function worker() {
    while (queue.length > 0 && seen.size <= MAX_MODULES) {
      const url = queue.shift()!;
      const response = await fetch(url, { headers: { Accept: url === appUrl ? "text/html" : "*/*" } });
      if (!response.ok) continue;
      const type = response.headers.get("content-type") ?? "";
      if (!/javascript|html|typescript/.test(type)) continue;
      for (const next of importsOf(await response.text(), url, origin)) {
        if (seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
      }
    }
  }
  // The page first (its scripts seed the queue), then the graph in parallel.
  await worker();
  while (queue.length > 0) await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return seen.size;
}
