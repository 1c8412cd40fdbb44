/**
 * `npm run bench:messaging` — the messaging spec's figures (issue 13):
 *
 * 1. Injection assembly with 10,000 unread messages, in-process: lib/injection
 *    packing a seeded mix (1% critical, 4% high, 10% addressed to the agent,
 *    10% about its task, threads of 2–8 replies, links and long bodies) into
 *    the default 768-token budget; p50/p99 per assembly, tokens injected
 *    against the naive "everything unread" prompt, and whether every critical
 *    message and direct mention is either shown or counted in the footer.
 * 2. Server side, with the backend as its own process over convex/: post →
 *    unread badge on a person's subscribed client (channels.list), p50/p99,
 *    for probe agents posting one message at a time into a channel she
 *    watches while 100 other agents (API keys, the messaging HTTP API) post
 *    into a project channel:
 *    - at their rate limit: each agent one post a second (the `messagePost`
 *      bucket's sustained rate), 100 posts/s in all, for STEADY_SECONDS;
 *    - in a burst: every agent spends its whole bucket at once, as fast as
 *      the backend answers (the backend saturated, each request queued behind
 *      ~100 others); only probes that start while the burst lasts count.
 * 3. The brain's context assembly per model call for an agent with the
 *    flood's messages unread (the run's own timing: context + injection),
 *    and whether every critical message is kept on the path a run takes:
 *    CRITICALS critical messages are posted into #flood before everything
 *    else, so thousands of newer ones bury them; the first run's prompt must
 *    show each or count it in its footer (records/inbox reads them by index).
 */
import os from "node:os";
import { api } from "../convex/_generated/api";
import type { Id } from "../convex/_generated/dataModel";
import type { ChatMessage } from "../convex/brain/model";
import { buildInjection, type InjectionMessage } from "../convex/lib/injection";
import { countTokens } from "../convex/lib/tokens";
import { MESSAGING_LIMITS } from "../convex/records/rateLimits";
import { agentsWithKeys, seedDemoSquad } from "../tests/backend/helpers";
import { prng } from "../tests/fixtures/secrets/corpus";
import { log, sleep, startModelBackend, table } from "./harness";
import { summarize } from "./stats";

const UNREAD = 10_000;
const ASSEMBLIES = 200;
const FLOODERS = 100;
const PROBES = 5;
const BURST = MESSAGING_LIMITS.messagePost.capacity;
/** One post a second per agent: the `messagePost` bucket's sustained rate (60 a minute). */
const STEADY_GAP_MS = MESSAGING_LIMITS.messagePost.period / MESSAGING_LIMITS.messagePost.rate;
const STEADY_SECONDS = 15;
/** Probe posts during the steady phase, spread over it (each probe agent stays inside its own bucket). */
const STEADY_PROBES = 100;
const MENTION_RUNS = 20;
/** Critical messages posted before the flood, the oldest unread the agent has. */
const CRITICALS = 3;
const criticalBody = (i: number) => `Critical ${i}: stop the release train, the signing key leaked`;

const { head, row } = table(58, 2, 9);

const WORDS = "the launch copy needs a shorter hero line and the signup form should ask for less before the trial starts so we can ship on friday".split(" ");

/** A seeded mix of unread messages, newest last. */
function unreadMix(count: number): InjectionMessage[] {
  const random = prng(13);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const out: InjectionMessage[] = [];
  let thread: string | undefined;
  for (let i = 0; i < count; i++) {
    const r = random();
    const words = Array.from({ length: 8 + Math.floor(random() * 60) }, () => pick(WORDS)).join(" ");
    const links = random() < 0.1 ? " see https://example.com/a https://example.com/b https://example.com/c" : "";
    if (random() < 0.15) thread = `thread-${i}`;
    else if (random() < 0.3) thread = undefined;
    out.push({
      id: `m${i}`,
      from: `Agent ${i % 97}`,
      where: thread !== undefined ? "thread in #launch" : pick(["#launch", "#design", "a DM", "#general"]),
      body: `${words}.${links}`,
      importance: r < 0.01 ? "critical" : r < 0.05 ? "high" : "normal",
      direct: random() < 0.1,
      aboutTask: random() < 0.1,
      createdAt: 1_700_000_000_000 + i * 1000,
      threadId: thread,
    });
  }
  return out;
}

function benchAssembly() {
  const messages = unreadMix(UNREAD);
  const naive = countTokens(messages.map((m) => `- ${m.from} in ${m.where}: ${m.body}`).join("\n"));
  const times: number[] = [];
  let last = buildInjection(messages);
  for (let i = 0; i < ASSEMBLIES; i++) {
    const t0 = performance.now();
    last = buildInjection(messages);
    times.push(performance.now() - t0);
  }
  const shown = new Set(last.included);
  const critical = messages.filter((m) => m.importance === "critical");
  const direct = messages.filter((m) => m.direct && m.importance !== "critical");
  return {
    times: summarize(times),
    tokens: last.tokens,
    naive,
    criticalShown: critical.filter((m) => shown.has(m.id)).length,
    criticalTotal: critical.length,
    criticalCounted: last.omitted.critical,
    directShown: direct.filter((m) => shown.has(m.id)).length,
    directTotal: direct.length,
    directCounted: last.omitted.direct,
    omitted: last.omitted.total,
  };
}

async function benchServer() {
  // The scripted model answers at once, so a run's time is the brain's own.
  /** Writer's prompts, in the order its model calls were made. */
  const writerPrompts: string[] = [];
  const { backend, watcher, close } = await startModelBackend("messaging", (request: { messages: ChatMessage[] }) => {
    if (/You are Writer \(/.test(request.messages[0]?.content ?? "")) writerPrompts.push(request.messages.map((m) => m.content).join("\n\n"));
    const promptTokens = request.messages.reduce((sum, m) => sum + countTokens(m.content), 0);
    return { content: "Noted.", usage: { prompt_tokens: promptTokens, completion_tokens: 2 } };
  });
  try {
    const { member: ada, departmentId, token } = await seedDemoSquad(backend, "BenchAdmin");
    const writer = (await ada.query(api.agents.list, { departmentId })).find((a) => a.name === "Writer")!;
    // The posters, then the probes of each phase (a probe agent's bucket lasts one phase).
    log(`creating ${FLOODERS + 2 * PROBES} agents with API keys`);
    const keys = await agentsWithKeys(ada, departmentId, { count: FLOODERS + 2 * PROBES, prefix: "Poster", allowedTools: ["post_message"] });
    const flood = await ada.mutation(api.channels.create, { departmentId, name: "flood", visibility: "project" });
    await ada.mutation(api.channels.addMember, { channelId: flood, key: writer.sessionKey });
    const probe = await ada.mutation(api.channels.create, { departmentId, name: "probe", visibility: "project" });
    const post = async (key: string, channel: string, body: string) => {
      const response = await fetch(`${backend.siteUrl}/messages`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ channel, body }),
      });
      if (response.status !== 200) throw new Error(`POST /messages: ${response.status} ${await response.text()}`);
    };

    // Ada's badge for #probe, as her sidebar shows it.
    let probeUnread = -1;
    let waiting: { count: number; resolve: () => void } | null = null;
    watcher.setAuth(async () => token);
    watcher.onUpdate(api.channels.list, { departmentId }, (channels) => {
      probeUnread = channels.find((c) => c._id === probe)?.unread ?? 0;
      if (waiting !== null && probeUnread >= waiting.count) waiting.resolve();
    });
    while (probeUnread < 0) await new Promise((r) => setTimeout(r, 20));

    let expected = probeUnread;
    /** Posts one probe message and waits for Ada's badge to count it; ms. */
    const probeOnce = async (key: string) => {
      expected++;
      const seen = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`probe ${expected} not seen within 120 s`)), 120_000);
        waiting = { count: expected, resolve: () => { clearTimeout(timer); resolve(); } };
      });
      const t0 = performance.now();
      await post(key, "probe", `Probe ${expected}`);
      await seen;
      waiting = null;
      return performance.now() - t0;
    };

    // The oldest unread of all: critical messages, posted by the burst's probes (their buckets refill long before the burst).
    for (let i = 0; i < CRITICALS; i++) {
      const response = await fetch(`${backend.siteUrl}/messages`, {
        method: "POST",
        headers: { Authorization: `Bearer ${keys[FLOODERS + PROBES + (i % PROBES)]}`, "Content-Type": "application/json" },
        body: JSON.stringify({ channel: "flood", body: criticalBody(i), importance: "critical" }),
      });
      if (response.status !== 200) throw new Error(`POST /messages (critical): ${response.status} ${await response.text()}`);
    }

    const steadyKeys = keys.slice(0, FLOODERS);
    const steadyProbeKeys = keys.slice(FLOODERS, FLOODERS + PROBES);
    log(`${FLOODERS} agents post one message every ${STEADY_GAP_MS} ms each into #flood for ${STEADY_SECONDS} s while probes post into #probe`);
    const steadyStarted = performance.now();
    const steadyEnds = steadyStarted + STEADY_SECONDS * 1000;
    let steadyPosts = 0;
    const random = prng(7);
    const steady = Promise.all(
      steadyKeys.map(async (key, a) => {
        // Spread over the first second, then paced by the clock (a slow answer does not shift the schedule).
        let at = steadyStarted + random() * STEADY_GAP_MS;
        for (let i = 0; at < steadyEnds; i++, at += STEADY_GAP_MS) {
          await sleep(at - performance.now());
          await post(key, "flood", `Steady ${a}/${i}: ${WORDS.slice(0, 8 + (i % 12)).join(" ")}`);
          steadyPosts++;
        }
      }),
    );
    const steadyBadge: number[] = [];
    const probeGap = (STEADY_SECONDS * 1000 - 1000) / STEADY_PROBES;
    for (let i = 0; i < STEADY_PROBES; i++) {
      await sleep(steadyStarted + 1000 + i * probeGap - performance.now());
      steadyBadge.push(await probeOnce(steadyProbeKeys[i % PROBES]));
    }
    await steady;
    const steadyRate = steadyPosts / ((performance.now() - steadyStarted) / 1000);

    // Ada reads #probe, as she would by opening it: the badge counts only up to MAX_UNREAD_COUNTED.
    await ada.mutation(api.inbox.markRead, { channelId: probe });
    while (probeUnread !== 0) await sleep(20);
    expected = 0;

    // Posting at the sustained rate left each poster's bucket all but full: a few seconds top it up.
    await sleep(3 * STEADY_GAP_MS);
    const floodKeys = steadyKeys;
    const floodProbeKeys = keys.slice(FLOODERS + PROBES);
    log(`${FLOODERS} agents post ${BURST} each into #flood at once while probes post one at a time into #probe`);
    const floodStarted = performance.now();
    let floodPosts = 0;
    let floodDoneAt = 0;
    const flooding = Promise.all(
      floodKeys.map(async (key, a) => {
        for (let i = 0; i < BURST; i++) {
          await post(key, "flood", `Flood ${a}/${i}: ${WORDS.slice(0, 8 + (i % 12)).join(" ")}`);
          floodPosts++;
        }
      }),
    ).then(() => (floodDoneAt = performance.now()));
    const badge: number[] = [];
    for (let i = 0; floodDoneAt === 0 && i < PROBES * BURST; i++) badge.push(await probeOnce(floodProbeKeys[i % PROBES]));
    await flooding;
    const floodRate = floodPosts / ((floodDoneAt - floodStarted) / 1000);

    log(`${MENTION_RUNS} runs of Writer with the flood unread`);
    const taskId: Id<"tasks"> = await ada.mutation(api.tasks.create, { departmentId, title: "Launch copy" });
    for (let i = 0; i < MENTION_RUNS; i++) {
      await ada.mutation(api.messages.create, { taskId, content: `@Writer status ${i}?` });
      // One run at a time, so each sees the inbox as the previous left it.
      for (let waited = 0; waited < 30_000; waited += 50) {
        const runs = await ada.query(api.runs.listForTask, { taskId });
        if (runs.length > i && runs.every((r) => r.status !== "running" && r.status !== "queued")) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const contextMs: number[] = [];
    const injected: number[] = [];
    for (const run of await ada.query(api.runs.listForTask, { taskId })) {
      for (const t of run.timings) contextMs.push(t.contextMs);
      const tokens = (run as { injectionTokens?: number }).injectionTokens;
      if (tokens !== undefined) injected.push(tokens);
    }
    // The run path: what the first run's first prompt showed of the critical messages, and what its footer counted.
    const first = writerPrompts.find((prompt) => prompt.includes("Messages for you since your last run:")) ?? "";
    const criticalShownFirst = Array.from({ length: CRITICALS }, (_, i) => i).filter((i) => first.includes(criticalBody(i))).length;
    const criticalCountedFirst = Number(/including (\d+) critical/.exec(first)?.[1] ?? 0);
    const criticalShownAny = Array.from({ length: CRITICALS }, (_, i) => i).filter((i) => writerPrompts.some((prompt) => prompt.includes(criticalBody(i)))).length;
    // "(230+ more not shown…": the rows past the newest window are counted up to a bound, not read.
    const unreadAtFirst = /\((\d+\+?) more not shown/.exec(first)?.[1] ?? "0";
    return {
      steadyBadge: summarize(steadyBadge),
      steadyRate,
      steadyPosts,
      badge: summarize(badge),
      floodRate,
      floodPosts,
      contextMs: summarize(contextMs),
      injected: injected.length > 0 ? summarize(injected) : null,
      critical: { shownFirst: criticalShownFirst, countedFirst: criticalCountedFirst, shownAny: criticalShownAny, notShownFirst: unreadAtFirst },
    };
  } finally {
    await close();
  }
}

async function main() {
  const started = performance.now();
  log(`assembling the injection for ${UNREAD.toLocaleString("en")} unread messages, ${ASSEMBLIES} times`);
  const a = benchAssembly();
  const s = process.argv.includes("--assembly-only") ? null : await benchServer();
  console.log(`Messaging benchmark — machine: ${os.cpus().length} cores, node ${process.version}, load ${os.loadavg()[0].toFixed(1)} at the end

${head}
${row(`injection assembly, ${UNREAD.toLocaleString("en")} unread, budget 768 (in-process)`, a.times, "ms")}
tokens injected: ${a.tokens} of the 768 budget; the naive "everything unread" prompt: ${a.naive.toLocaleString("en")} tokens (${(a.naive / Math.max(1, a.tokens)).toFixed(0)}× more)
critical messages (the packing function alone): ${a.criticalShown} of ${a.criticalTotal} shown, ${a.criticalCounted} counted in the footer (${a.criticalShown + a.criticalCounted === a.criticalTotal ? "none lost" : "SOME LOST"})
direct mentions: ${a.directShown} of ${a.directTotal} shown, ${a.directCounted} counted in the footer (${a.directShown + a.directCounted === a.directTotal ? "none lost" : "SOME LOST"}); ${a.omitted.toLocaleString("en")} left out in all${
    s === null
      ? ""
      : `
${row(`post → unread badge, ${FLOODERS} agents posting at their rate limit`, s.steadyBadge, "ms")}
${row(`post → unread badge, ${FLOODERS} agents spending their burst at once`, s.badge, "ms")}
${row("brain context assembly per model call, flood unread", s.contextMs, "ms")}
${s.injected === null ? "injection tokens per run: not recorded by this build" : row("injection tokens per run", s.injected, "tokens")}
critical messages on the run path (${CRITICALS} posted before the flood, the oldest unread): the first run's prompt showed ${s.critical.shownFirst} and counted ${s.critical.countedFirst} in its footer (the footer: ${s.critical.notShownFirst} messages not shown in all); target every critical kept: ${s.critical.shownFirst + s.critical.countedFirst === CRITICALS ? "met" : "NOT met"}; shown in some run's prompt: ${s.critical.shownAny} of ${CRITICALS}
at their rate limit: ${s.steadyPosts} posts by ${FLOODERS} agents at ${s.steadyRate.toFixed(0)} posts/s over the HTTP API (each one post every ${STEADY_GAP_MS} ms, the bucket's sustained rate)
burst: ${s.floodPosts} posts by ${FLOODERS} agents at ${s.floodRate.toFixed(0)} posts/s over the HTTP API (each agent's whole bucket, ${BURST} posts, as fast as answered; badge samples only while it lasts)`
  }
wall time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
