import { readFileSync } from "node:fs";
import { parseNegatives, parsePositives, prng } from "./tests/fixtures/secrets/corpus";
import { scanUserText } from "./convex/lib/secrets/userText";
const F = "./tests/fixtures/secrets";
const pos = parsePositives(readFileSync(`${F}/positives.jsonl`, "utf8")).map((r) => r.text);
const neg = parseNegatives(readFileSync(`${F}/negatives.jsonl`, "utf8")).map((r) => r.text);
const all = [...pos, ...neg];
const random = prng(4096);
const msgs: string[] = [];
while (msgs.length < 1000) { let m = ""; while (m.length < 4096) m += all[Math.floor(random() * all.length)] + "\n"; msgs.push(m.slice(0, 4096)); }
const t = performance.now();
for (let r = 0; r < 5; r++) for (const m of msgs) scanUserText(m, { maxChars: 4096, enabled: true, timeoutMs: 800 });
console.log(`${((performance.now() - t) / 5000 * 1000).toFixed(1)} µs/msg`);
