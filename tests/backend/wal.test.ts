import { spawn } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConvexHttpClient } from "convex/browser";
import { anyApi } from "convex/server";
import { expect, test } from "vitest";
import { DurableStore, encodeLogLine, repairLog, scanLogFile, WalCorruptError } from "../../tools/local-backend/storage";
import { PROJECT_ROOT } from "./helpers";
import { spawnedBackends } from "./lifecycle";
import { killHard, spawnBackend, stopGracefully } from "./process";

const backends = spawnedBackends();

const note = (n: number, body: string) => ({ type: "commit" as const, ts: String(n), nextDocId: 10_000 + n + 1, writes: [[`${10_000 + n}notes`, { _id: `${10_000 + n}notes`, body }]] as Array<[string, { _id: string; body: string }]> });

/** A log of `count` checksummed commits; returns the file and each line's start offset. */
function writeLog(dataDir: string, count: number): { file: string; offsets: number[]; lines: string[] } {
  const lines = Array.from({ length: count }, (_, i) => encodeLogLine(note(i + 1, `note ${i + 1}`)));
  const offsets: number[] = [];
  let at = 0;
  for (const line of lines) {
    offsets.push(at);
    at += Buffer.byteLength(line);
  }
  const file = path.join(dataDir, "wal.jsonl");
  writeFileSync(file, lines.join(""));
  return { file, offsets, lines };
}

test("each log line carries a CRC32 of its record; lines from before checksums still load", () => {
  const dataDir = backends.dataDir();
  const store = new DurableStore(dataDir);
  store.open();
  store.appendCommit({ ts: "5", nextDocId: 10_001, writes: [["10000notes", { _id: "10000notes", body: "checked" }]] });
  store.close();
  const line = readFileSync(path.join(dataDir, "wal.jsonl"), "utf8");
  expect(line).toMatch(/^\{"crc":"[0-9a-f]{8}","rec":\{"type":"commit","ts":"5",.*\}\}\n$/);
  // An older, bare line after it.
  appendFileSync(path.join(dataDir, "wal.jsonl"), JSON.stringify(note(7, "legacy")) + "\n");
  const state = new DurableStore(dataDir, { log: () => {} }).open();
  expect([...state.documents.values()].map((d) => d.body)).toEqual(["checked", "legacy"]);
});

test("a torn or checksum-failing last record is dropped with a warning naming the bytes; earlier records stay", () => {
  const dataDir = backends.dataDir();
  const { file, offsets, lines } = writeLog(dataDir, 3);
  // A bit flipped in the last record's body: still JSON, but the checksum no longer matches.
  writeFileSync(file, lines[0] + lines[1] + lines[2].replace("note 3", "note 8"));
  const warnings: string[] = [];
  const state = new DurableStore(dataDir, { log: (l) => warnings.push(l) }).open();
  expect([...state.documents.values()].map((d) => d.body)).toEqual(["note 1", "note 2"]);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain(`dropped 1 torn record(s) at the end (${Buffer.byteLength(lines[2])} bytes from byte offset ${offsets[2]})`);

  // A half-written last line, plus trailing garbage lines with nothing good after them.
  const again = backends.dataDir();
  const second = writeLog(again, 2);
  appendFileSync(second.file, "\0\0\0\n" + second.lines[1].slice(0, 20));
  const scan = scanLogFile(second.file);
  expect(scan.corrupt).toBeNull();
  expect(scan.tornRecords).toBe(2);
  expect(scan.goodBytes).toBe(Buffer.byteLength(second.lines.join("")));
});

test("a corrupt record with good records after it refuses to open, naming line and byte offset and the repair command", () => {
  const dataDir = backends.dataDir();
  const { file, offsets, lines } = writeLog(dataDir, 4);
  writeFileSync(file, lines[0] + lines[1].replace("note 2", "note X") + lines[2] + lines[3]);
  const open = () => new DurableStore(dataDir, { log: () => {} }).open();
  expect(open).toThrow(WalCorruptError);
  expect(open).toThrow(`Corrupt write-ahead log ${file} at line 2 (byte offset ${offsets[1]}): checksum mismatch`);
  expect(open).toThrow(`npm run backend -- repair --data-dir "${dataDir}"`);
  // Nothing was changed by the refusal.
  expect(readFileSync(file, "utf8")).toBe(lines[0] + lines[1].replace("note 2", "note X") + lines[2] + lines[3]);

  const result = repairLog(dataDir, new Date("2030-01-02T03:04:05.678Z"));
  const aside = `${file}.corrupt-2030-01-02T03-04-05-678Z`;
  expect(result).toEqual({ kept: 1, asideFile: aside, movedBytes: Buffer.byteLength(lines.slice(1).join("")), offset: offsets[1] });
  expect(readFileSync(file, "utf8")).toBe(lines[0]);
  expect(readFileSync(aside, "utf8")).toBe(lines[1].replace("note 2", "note X") + lines[2] + lines[3]);
  expect(statSync(aside).mode & 0o777).toBe(0o600);
  expect([...open().documents.values()].map((d) => d.body)).toEqual(["note 1"]);
  // A sound log is left alone.
  expect(repairLog(dataDir).asideFile).toBeNull();
});

test("a log bigger than a read is replayed record by record: damage and a torn tail past the first read are placed to the byte", () => {
  // ~12 MB of multi-byte text: records and characters fall across the 8 MB reads.
  const count = 3_000;
  const bodies = Array.from({ length: count }, (_, i) => `note ${i + 1} ${"ü漢🎼".repeat(450)}`);
  const lines = bodies.map((body, i) => encodeLogLine({ ...note(i + 1, body), writes: [[`${10_000 + i + 1}notes`, { _id: `${10_000 + i + 1}notes`, body }]] }));
  const offsets: number[] = [];
  let at = 0;
  for (const line of lines) {
    offsets.push(at);
    at += Buffer.byteLength(line);
  }
  expect(at).toBeGreaterThan(10 * 1024 * 1024);
  const damaged = 2_500;
  expect(offsets[damaged]).toBeGreaterThan(8 * 1024 * 1024);

  const dataDir = backends.dataDir();
  const file = path.join(dataDir, "wal.jsonl");
  writeFileSync(file, lines.join(""));
  const state = new DurableStore(dataDir, { log: () => {} }).open();
  expect(state.documents.size).toBe(count);
  expect(state.documents.get(`${10_000 + count}notes`)?.body).toBe(bodies[count - 1]);

  // Damage in the middle, past the first read: refused, naming its line and byte offset.
  const middle = backends.dataDir();
  writeFileSync(path.join(middle, "wal.jsonl"), [...lines.slice(0, damaged), lines[damaged].replace("note", "nope"), ...lines.slice(damaged + 1)].join(""));
  expect(() => new DurableStore(middle, { log: () => {} }).open()).toThrow(`at line ${damaged + 1} (byte offset ${offsets[damaged]}): checksum mismatch`);
  expect(scanLogFile(path.join(middle, "wal.jsonl"))).toMatchObject({ records: damaged, corrupt: { recordsBefore: damaged, recordsAfter: count - damaged - 1 } });

  // A torn tail there: cut at the byte where it starts, every record before it kept.
  const torn = backends.dataDir();
  writeFileSync(path.join(torn, "wal.jsonl"), lines.slice(0, damaged).join("") + lines[damaged].slice(0, 1_000));
  const warnings: string[] = [];
  expect(new DurableStore(torn, { log: (l) => warnings.push(l) }).open().documents.size).toBe(damaged);
  expect(warnings[0]).toContain(`from byte offset ${offsets[damaged]}`);
  expect(statSync(path.join(torn, "wal.jsonl")).size).toBe(offsets[damaged]);
});

/** Runs `npm run backend -- repair --data-dir <dir>` (through node, as spawnBackend does). */
function runRepair(dataDir: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tools/local-backend/cli.ts", "repair", "--data-dir", dataDir], {
    cwd: PROJECT_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

async function addNotes(url: string, bodies: string[]): Promise<void> {
  const http = new ConvexHttpClient(url);
  for (const body of bodies) await http.mutation(anyApi.notes.add, { channel: "wal", body });
}

async function listNotes(url: string): Promise<string[]> {
  const notes = (await new ConvexHttpClient(url).query(anyApi.notes.list, { channel: "wal" })) as Array<{ body: string }>;
  return notes.map((n) => n.body);
}

test("the real backend: a cut last line starts with a warning; a damaged middle refuses until `repair`", async () => {
  const dataDir = backends.dataDir();
  const first = await backends.spawn({ dataDir });
  await addNotes(first.url, ["one", "two", "three"]);
  // SIGKILL keeps the log as it is (a clean stop would fold it into the snapshot).
  await killHard(first);
  const file = path.join(dataDir, "wal.jsonl");
  const log = readFileSync(file, "utf8");
  const commitLines = log.split("\n").filter((l) => l.includes('"type":"commit"'));
  expect(commitLines).toHaveLength(3);

  // Cut the last line in half, as a crash mid-write would.
  const lastStart = log.lastIndexOf(commitLines[2]);
  truncateSync(file, lastStart + 30);
  const second = await backends.spawn({ dataDir });
  expect(second.output.join("")).toMatch(new RegExp(`dropped \\d+ torn record\\(s\\) at the end \\(30 bytes from byte offset ${lastStart}\\)`));
  expect(await listNotes(second.url)).toEqual(["one", "two"]);

  await addNotes(second.url, ["four", "five", "six"]);
  await killHard(second);
  // Damage the record of "five", which has "six" after it.
  const damaged = readFileSync(file, "utf8");
  const fiveAt = damaged.indexOf('"body":"five"');
  const lineStart = damaged.lastIndexOf("\n", fiveAt) + 1;
  const lineNumber = damaged.slice(0, lineStart).split("\n").length;
  writeFileSync(file, damaged.replace('"body":"five"', '"body":"fivE"'));
  const refused = await spawnBackend({ dataDir }).then(
    () => null,
    (error: Error) => error.message,
  );
  expect(refused).toContain(`Corrupt write-ahead log ${file} at line ${lineNumber} (byte offset ${Buffer.byteLength(damaged.slice(0, lineStart))})`);
  expect(refused).toContain("npm run backend -- repair --data-dir");
  expect(refused).not.toMatch(/\n\s+at /); // a message for a person, not a stack

  const repair = await runRepair(dataDir);
  expect(repair.code).toBe(0);
  expect(repair.output).toContain("The backend can start now.");
  const aside = readdirSync(dataDir).filter((name) => name.startsWith("wal.jsonl.corrupt-"));
  expect(aside).toHaveLength(1);
  expect(readFileSync(path.join(dataDir, aside[0]), "utf8")).toContain('"body":"fivE"');

  const third = await backends.spawn({ dataDir });
  expect(await listNotes(third.url)).toEqual(["one", "two", "four"]);
  await stopGracefully(third);
});
