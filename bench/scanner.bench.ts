/**
 * `npm run bench:scanner` — the secret scanner alone, in-process, as every
 * chat post, task title and thread message runs it: `scanUserText` (cut to
 * the limit, then Maestro's rules on the text and on its normalized view).
 *
 * Two corpora of 4,096-character messages (the chat's limit), packed from the
 * labelled fixtures (tests/fixtures/secrets) in seeded random order:
 * - "realistic chat": the negatives (chat, code, URLs, logs, near-misses
 *   such as `token_hash: …`) with a fixture secret on 2% of lines, about one
 *   secret in every second message;
 * - "fixture-dense": every fixture line alike, so a third of the lines hold
 *   a secret (about 17 per message) — the scanner's busy case.
 * For each: throughput in MB/s (10^6 characters, the corpus is ASCII, per
 * second of wall time, and per second of this process's CPU time, which the
 * other processes of a shared machine disturb less) and p50/p99/max per
 * message.
 *
 * `--baseline <module>` also loads another implementation (a path to a copy
 * of convex/lib/secrets/index.ts, e.g. from an older commit) and times both
 * in alternating rounds, so before/after come from one run.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as current from "../convex/lib/secrets/index";
import { MESSAGE_CHARS } from "../tests/fixtures/secrets/adversarial";
import { parseNegatives, parsePositives, prng } from "../tests/fixtures/secrets/corpus";
import { summarize, type Summary } from "./stats";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../tests/fixtures/secrets");
const MESSAGES = Number(process.env.BENCH_SCANNER_MESSAGES ?? 2_000);
const ROUNDS = Number(process.env.BENCH_SCANNER_ROUNDS ?? 3);
/** Share of lines holding a secret in the realistic corpus. */
const SECRET_LINE_SHARE = 0.02;
/** The spec's default `chat.scanner.timeoutMs`. */
const TIMEOUT_MS = 800;

type ScanUserText = typeof current.scanUserText;

interface Pass {
  wallMs: number;
  cpuMs: number;
  times: number[];
  errors: number;
  redacted: number;
}

function pack(pick: (random: () => number) => string, seed: number): string[] {
  const random = prng(seed);
  const messages: string[] = [];
  while (messages.length < MESSAGES) {
    let message = "";
    while (message.length < MESSAGE_CHARS) message += pick(random) + "\n";
    messages.push(message.slice(0, MESSAGE_CHARS));
  }
  return messages;
}

function corpora(): Array<{ name: string; messages: string[] }> {
  const positives = parsePositives(readFileSync(path.join(FIXTURES, "positives.jsonl"), "utf8")).map((row) => row.text);
  const negatives = parseNegatives(readFileSync(path.join(FIXTURES, "negatives.jsonl"), "utf8")).map((row) => row.text);
  const all = [...positives, ...negatives];
  const any = (lines: readonly string[], random: () => number) => lines[Math.floor(random() * lines.length)];
  return [
    { name: "realistic chat (2% of lines a secret)", messages: pack((random) => any(random() < SECRET_LINE_SHARE ? positives : negatives, random), 4096) },
    { name: "fixture-dense (1/3 of lines a secret)", messages: pack((random) => any(all, random), 4096) },
  ];
}

function timePass(scan: ScanUserText, messages: readonly string[]): Pass {
  const times: number[] = [];
  let errors = 0;
  let redacted = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const message of messages) {
    const at = performance.now();
    const result = scan(message, { maxChars: MESSAGE_CHARS, enabled: true, timeoutMs: TIMEOUT_MS });
    times.push(performance.now() - at);
    if (result.scannerError) errors++;
    if (result.redacted) redacted++;
  }
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, times, errors, redacted };
}

/** The median round's figures: throughput by wall and CPU time, per-message percentiles over all rounds. */
function combine(passes: readonly Pass[], chars: number) {
  const median = (values: number[]) => summarize(values).p50;
  return {
    wallMbps: chars / 1e6 / (median(passes.map((p) => p.wallMs)) / 1000),
    cpuMbps: chars / 1e6 / (median(passes.map((p) => p.cpuMs)) / 1000),
    perMessage: summarize(passes.flatMap((p) => p.times)) as Summary,
    errors: passes.reduce((sum, p) => sum + p.errors, 0),
    redacted: passes[0].redacted,
  };
}

async function main() {
  const at = process.argv.indexOf("--baseline");
  const implementations: Array<{ name: string; scan: ScanUserText }> = [{ name: "current", scan: current.scanUserText }];
  if (at >= 0) {
    const module = (await import(pathToFileURL(path.resolve(process.argv[at + 1])).href)) as { scanUserText: ScanUserText };
    implementations.push({ name: "baseline", scan: module.scanUserText });
  }
  const ms = (value: number) => `${value.toFixed(3)} ms`.padStart(10);
  console.log(`Secret scanner (scanUserText: cut, then ${current.SECRET_RULES.length} rules on the text and its normalized view)
in-process, node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"}, load ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores; ${MESSAGES} messages of ${MESSAGE_CHARS} chars per corpus, ${ROUNDS} rounds
${"corpus / implementation".padEnd(50)} ${"MB/s wall".padStart(9)} ${"MB/s cpu".padStart(9)} ${"p50".padStart(10)} ${"p99".padStart(10)} ${"max".padStart(10)}  redacted msgs`);
  for (const corpus of corpora()) {
    const passes = new Map(implementations.map((impl) => [impl.name, [] as Pass[]]));
    for (const impl of implementations) timePass(impl.scan, corpus.messages.slice(0, 300)); // warm-up: JIT, regex compilation
    for (let round = 0; round < ROUNDS; round++) {
      for (const impl of implementations) passes.get(impl.name)!.push(timePass(impl.scan, corpus.messages));
    }
    const figures = new Map<string, ReturnType<typeof combine>>();
    for (const impl of implementations) {
      const f = combine(passes.get(impl.name)!, corpus.messages.length * MESSAGE_CHARS);
      figures.set(impl.name, f);
      console.log(
        `${`${corpus.name} / ${impl.name}`.padEnd(50)} ${f.wallMbps.toFixed(1).padStart(9)} ${f.cpuMbps.toFixed(1).padStart(9)} ${ms(f.perMessage.p50)} ${ms(f.perMessage.p99)} ${ms(f.perMessage.max)}  ${f.redacted}${f.errors > 0 ? ` (${f.errors} scanner errors)` : ""}`,
      );
    }
    const baseline = figures.get("baseline");
    if (baseline !== undefined) {
      const now = figures.get("current")!;
      console.log(`${"".padEnd(50)} ratio current/baseline: ${(now.wallMbps / baseline.wallMbps).toFixed(2)}× wall, ${(now.cpuMbps / baseline.cpuMbps).toFixed(2)}× cpu`);
    }
  }
}

await main();
