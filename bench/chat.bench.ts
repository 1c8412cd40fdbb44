/**
 * `npm run bench:chat` — the #maestro chat benchmark. This file holds the
 * secret-scanner part, `benchScanner()`, which the full chat benchmark calls;
 * alone: `npx tsx bench/chat.bench.ts --scanner-only`.
 *
 * Scanner: every post runs `redactSecrets` with Maestro's rule scanner, so
 * that is what is timed, in-process, per 4,096-character message (the chat's
 * size limit): a mixed corpus built from the labelled fixtures (secrets and
 * chat-typical text, shuffled by a seeded PRNG and packed to exactly 4,096
 * characters) gives throughput and p50/p99; the crafted worst-case inputs of
 * the ReDoS test give the adversarial p99/max.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { redactSecrets, ruleScanner, SECRET_RULES } from "../convex/lib/secrets/index";
import { adversarialInputs, findingSamples, MESSAGE_CHARS } from "../tests/fixtures/secrets/adversarial";
import { parseNegatives, parsePositives } from "../tests/fixtures/secrets/corpus";
import { summarize, type Summary } from "./stats";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../tests/fixtures/secrets");
/** The spec's default `chat.scanner.timeoutMs`. */
const TIMEOUT_MS = 800;

export interface ScannerBenchResult {
  messages: number;
  /** Characters scanned in the timed mixed-corpus pass. */
  chars: number;
  /** Mixed corpus throughput, 10^6 characters (≈ bytes: the corpus is ASCII) per second. */
  mbPerSecond: number;
  /** Milliseconds per 4,096-character mixed message. */
  perMessage: Summary;
  /** Milliseconds per 4,096-character crafted worst-case message (all rules' inputs). */
  adversarial: Summary;
  /** Messages whose scan failed or timed out (expected 0). */
  scannerErrors: number;
}

/** mulberry32. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function corpusTexts(): { positives: string[]; all: string[] } {
  const positives = parsePositives(readFileSync(path.join(FIXTURES, "positives.jsonl"), "utf8")).map((row) => row.text);
  const negatives = parseNegatives(readFileSync(path.join(FIXTURES, "negatives.jsonl"), "utf8")).map((row) => row.text);
  return { positives, all: [...positives, ...negatives] };
}

/** `count` messages of exactly `MESSAGE_CHARS` characters, packed from corpus lines in seeded random order. */
function mixedMessages(lines: readonly string[], count: number): string[] {
  const random = prng(4096);
  const messages: string[] = [];
  while (messages.length < count) {
    let message = "";
    while (message.length < MESSAGE_CHARS) message += lines[Math.floor(random() * lines.length)] + "\n";
    messages.push(message.slice(0, MESSAGE_CHARS));
  }
  return messages;
}

function timeEach(messages: readonly string[]): { times: number[]; errors: number } {
  const times: number[] = [];
  let errors = 0;
  for (const message of messages) {
    const started = performance.now();
    const result = redactSecrets(message, ruleScanner, { timeoutMs: TIMEOUT_MS });
    times.push(performance.now() - started);
    if (result.scannerError) errors++;
  }
  return { times, errors };
}

/** Runs the scanner benchmark, prints its figures (via `log`) and returns them. */
export function benchScanner(options: { messages?: number; log?: (text: string) => void } = {}): ScannerBenchResult {
  const count = options.messages ?? 2_000;
  const log = options.log ?? ((text: string) => console.log(text));
  const corpus = corpusTexts();
  const messages = mixedMessages(corpus.all, count);
  timeEach(messages.slice(0, Math.min(200, count))); // warm-up: JIT and regex compilation

  const mixed = timeEach(messages);
  const totalMs = mixed.times.reduce((sum, ms) => sum + ms, 0);
  const chars = count * MESSAGE_CHARS;

  const crafted: string[] = [];
  for (const rule of SECRET_RULES) for (const input of adversarialInputs(rule, findingSamples(rule, corpus.positives))) crafted.push(input.text);
  timeEach(crafted.slice(0, 200));
  const adversarial = timeEach(crafted);

  const result: ScannerBenchResult = {
    messages: count,
    chars,
    mbPerSecond: chars / 1e6 / (totalMs / 1000),
    perMessage: summarize(mixed.times),
    adversarial: summarize(adversarial.times),
    scannerErrors: mixed.errors + adversarial.errors,
  };
  const ms = (value: number) => `${value.toFixed(3)} ms`.padStart(10);
  log(`Secret scanner (redactSecrets + rule scanner, ${SECRET_RULES.length} rules, in-process, node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"})
${"what".padEnd(48)} ${"samples".padStart(7)} ${"p50".padStart(10)} ${"p99".padStart(10)} ${"max".padStart(10)}
${"mixed corpus message (4,096 chars)".padEnd(48)} ${String(result.perMessage.count).padStart(7)} ${ms(result.perMessage.p50)} ${ms(result.perMessage.p99)} ${ms(result.perMessage.max)}
${"crafted worst-case message (4,096 chars)".padEnd(48)} ${String(result.adversarial.count).padStart(7)} ${ms(result.adversarial.p50)} ${ms(result.adversarial.p99)} ${ms(result.adversarial.max)}
throughput (mixed corpus): ${result.mbPerSecond.toFixed(1)} MB/s (${(chars / 1e6).toFixed(1)} MB in ${(totalMs / 1000).toFixed(2)} s); scanner errors/timeouts: ${result.scannerErrors}`);
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes("--scanner-only")) {
    console.error("[bench] only the scanner part of the chat benchmark lives here so far; running it (pass --scanner-only to say so).");
  }
  benchScanner();
}
