/**
 * Convex's WebSocket sync protocol, as the pinned `convex` client speaks it:
 * Connect, ModifyQuerySet, Mutation, Action, Authenticate and Event in;
 * Transition, MutationResponse, ActionResponse, AuthError and Ping out.
 *
 * Subscriptions are shared: identical queries (same function, arguments and
 * identity) from any number of clients are computed once. After every commit
 * the queries whose read sets the commit touched are re-run, and each client
 * receives only the results that changed.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { JSONValue } from "convex/values";
import type WebSocket from "ws";
import { AuthFailure, type TokenVerifier } from "./auth.js";
import { canonicalUdfPath, ReadSet, type Caller, type DocumentChange, type Engine, type FunctionOutcome } from "./engine.js";
import { sameSecret } from "./httpGuard.js";
import { encodeTs } from "./timestamps.js";
import { createTurnGate, type TurnGate } from "./turns.js";

/** Silence after which the server pings, as Convex does (the client gives up after 60 s). */
export const PING_INTERVAL_MS = 15_000;

// Work triggered from inside a function (a commit) must not inherit its context.
const runOutsideFunctions = AsyncLocalStorage.snapshot();

interface StateVersion {
  querySet: number;
  identity: number;
  ts: bigint;
}

/** A QueryUpdated carries its value as JSON text, encoded once per result and spliced into every Transition that sends it. */
type Modification =
  | { type: "QueryUpdated"; queryId: number; valueJson: string; logLines: string[]; journal: null }
  | { type: "QueryFailed"; queryId: number; errorMessage: string; errorData?: JSONValue; logLines: string[]; journal: null }
  | { type: "QueryRemoved"; queryId: number };

interface Subscription {
  key: string;
  udfPath: string;
  args: JSONValue;
  caller: Caller;
  outcome: FunctionOutcome;
  readSet: ReadSet;
  /** The result as sent, for telling whether a re-run changed it. */
  serialized: SerializedOutcome;
  subscribers: Map<Connection, Set<number>>;
  /** How long its latest run took (ms): what it costs each commit that touches it. */
  costMs: number;
}

class ProtocolError extends Error {}

interface QueuedTransition {
  connection: Connection;
  end: (current: StateVersion) => StateVersion;
  /** The commit ts the Transition reaches, when it moves the socket's ts. */
  ts?: bigint;
}

/** Queries one WebSocket may hold at once; the app needs a few dozen. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 1000;

/**
 * What one socket may cost everyone else. Every commit re-runs the queries
 * it touches before any client hears of it, so one socket holding hundreds
 * of distinct queries made every write in its department wait for all of
 * them; and a socket that stops reading kept every Transition in memory.
 */
export interface SocketLimits {
  /** Subscriptions a socket may hold, however cheap (MAX_SUBSCRIPTIONS_PER_SOCKET). */
  maxSubscriptions: number;
  /** Subscriptions a socket holds whatever they cost: a page of the app (board, drawer, side panel, composers) needs about forty. */
  freeSubscriptions: number;
  /**
   * Beyond those, a new subscription is refused once the socket's queries
   * (their latest run times, shared ones split among their sockets) add up
   * to this many milliseconds: what one commit may spend re-running them.
   */
  maxQueryMs: number;
  /** Bytes sent to a socket and not yet taken by it; past this the socket is closed and its memory freed. */
  maxUnsentBytes: number;
}

/** While re-running, the sockets done so far are sent their Transitions, and the event loop gets a turn, at least this often (ms). */
const FLUSH_SLICE_MS = 2;

export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  maxSubscriptions: MAX_SUBSCRIPTIONS_PER_SOCKET,
  freeSubscriptions: 64,
  maxQueryMs: 40,
  maxUnsentBytes: 8 * 1024 * 1024,
};

class Connection {
  sessionId: string | null = null;
  /**
   * The client's clock minus ours when its Connect arrived (ms), sent with
   * every Transition as Convex does: the client's auth manager uses it to
   * time the refresh of a token it kept from the last visit.
   */
  clockSkewMs: number | null = null;
  version: StateVersion = { querySet: 0, identity: 0, ts: 0n };
  caller: Caller = { kind: "user", identity: null };
  readonly queries = new Map<number, Subscription>();
  pending: Modification[] = [];
  /** Highest mutation timestamp answered; a Transition must reach it. */
  awaitingTs = 0n;
  /** The ts the latest Transition queued for this socket reaches (sent or still waiting for the disk). */
  queuedTs = 0n;
  /**
   * A MutationResponse went out since the last Transition. The client settles
   * a mutation only on a Transition after its response, and with group
   * commit the Transition reaching its ts may already have gone out first.
   */
  responseSinceTransition = false;
  /** Messages are handled one after another, so one socket's mutations run in order. */
  queue: Promise<void> = Promise.resolve();
  lastSentAt = Date.now();
  closed = false;
  /** Ends the socket's signed-in state when its token expires (Convex checks expiry all along, not once). */
  authExpiry: NodeJS.Timeout | null = null;

  constructor(
    readonly socket: WebSocket,
    private readonly maxUnsentBytes: number,
    /** Called once when the socket's unsent data passes the bound. */
    private readonly onOverflow: (connection: Connection) => void,
  ) {}

  send(message: Record<string, unknown>) {
    this.sendText(JSON.stringify(message));
  }

  sendText(text: string) {
    if (this.closed) return;
    this.lastSentAt = Date.now();
    this.socket.send(text);
    // A client that stops reading would have every later Transition kept here for it.
    if (this.socket.bufferedAmount > this.maxUnsentBytes) this.onOverflow(this);
  }

  /** What this socket's queries cost a commit that touches them all (ms); a query shared with other sockets counts in part. */
  queryCostMs(): number {
    let total = 0;
    for (const subscription of new Set(this.queries.values())) total += subscription.costMs / subscription.subscribers.size;
    return total;
  }
}

export class SyncServer {
  private readonly connections = new Set<Connection>();
  private readonly subscriptions = new Map<string, Subscription>();
  private pendingChanges: DocumentChange[] = [];
  /** Subscriptions still to be re-run for commits already flushed: the flush gave way before their sockets (flush). */
  private readonly behind = new Set<Subscription>();
  private refreshEverything = false;
  /** Serializes query evaluation for subscriptions: adds, identity changes and flushes never interleave. */
  private subscriptionWork: Promise<void> = Promise.resolve();
  /**
   * Transitions waiting for the disk, sent in the order they were queued.
   * Only the sending waits: the next flush already re-runs its queries, so a
   * slow fdatasync no longer holds back the results of the commits after it.
   */
  private sending: Promise<void> = Promise.resolve();
  /**
   * The sending queued before the latest: a flush waits for it, so at most
   * one flush waits for the disk while the next one runs; commits arriving
   * meanwhile are batched into one flush, as they were when each flush waited.
   */
  private sendingBeforeLatest: Promise<void> = Promise.resolve();
  private flushScheduled = false;
  private readonly pingTimer: NodeJS.Timeout;
  /** Query executions since start; benchmarks and tests read it to prove de-duplication. */
  queryRuns = 0;
  /** Sockets closed for not reading what was sent to them; tests and benchmarks read it. */
  overflowClosed = 0;
  private readonly limits: SocketLimits;

  constructor(
    private readonly engine: Engine,
    private readonly auth: TokenVerifier,
    private readonly adminKey: string,
    private readonly log: (line: string) => void,
    limits: Partial<SocketLimits> = {},
    /** Shared with the HTTP servers, so socket messages and requests take fair turns (turns.ts). */
    private readonly turns: TurnGate = createTurnGate(),
  ) {
    this.limits = { ...DEFAULT_SOCKET_LIMITS, ...Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined)) };
    this.pingTimer = setInterval(() => this.pingIdle(), 1_000);
    this.pingTimer.unref();
  }

  get connectionCount() {
    return this.connections.size;
  }

  get subscriptionCount() {
    return this.subscriptions.size;
  }

  accept(socket: WebSocket) {
    const connection = new Connection(socket, this.limits.maxUnsentBytes, (overflowing) => this.closeOverflowing(overflowing));
    this.connections.add(connection);
    socket.on("message", (data) => {
      const text = data.toString();
      connection.queue = connection.queue
        .then(() => this.turns.take())
        .then(() => this.handle(connection, text))
        .catch((error: unknown) => this.fail(connection, error));
    });
    socket.on("close", () => this.drop(connection));
    socket.on("error", () => this.drop(connection));
  }

  /** Called after every commit with the documents it changed. */
  notifyCommit(changes: DocumentChange[]) {
    this.pendingChanges.push(...changes);
    this.scheduleFlush();
  }

  /** Re-runs every subscription (after the functions were reloaded). */
  refreshAll() {
    this.refreshEverything = true;
    this.scheduleFlush();
  }

  close() {
    clearInterval(this.pingTimer);
    for (const connection of this.connections) connection.socket.terminate();
    this.connections.clear();
  }

  private async handle(connection: Connection, text: string) {
    if (connection.closed) return;
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ProtocolError("Malformed message: not JSON");
    }
    if (message === null || typeof message !== "object") throw new ProtocolError("Malformed message: not an object");
    switch (message.type) {
      case "Connect":
        connection.sessionId = requireString(message, "sessionId");
        if (typeof message.clientTs === "number" && Number.isFinite(message.clientTs)) connection.clockSkewMs = Math.round(message.clientTs - Date.now());
        return;
      case "ModifyQuerySet":
        return await this.modifyQuerySet(connection, message);
      case "Authenticate":
        return await this.authenticate(connection, message);
      case "Mutation":
        return await this.mutation(connection, message);
      case "Action":
        // Actions run concurrently with later messages, as on Convex.
        void this.action(connection, message).catch((error: unknown) => this.fail(connection, error));
        return;
      case "Event":
        return;
      default:
        throw new ProtocolError(`Malformed message: unknown type ${JSON.stringify(message.type)}`);
    }
  }

  private async modifyQuerySet(connection: Connection, message: Record<string, unknown>) {
    const baseVersion = requireNumber(message, "baseVersion");
    const newVersion = requireNumber(message, "newVersion");
    const modifications = message.modifications;
    if (!Array.isArray(modifications)) throw new ProtocolError("Malformed ModifyQuerySet: modifications must be an array");
    if (baseVersion !== connection.version.querySet) {
      throw new ProtocolError(`ModifyQuerySet base version ${baseVersion} does not match ${connection.version.querySet}`);
    }
    for (const modification of modifications as Array<Record<string, unknown>>) {
      if (modification?.type === "Add") {
        requireNumber(modification, "queryId");
        requireString(modification, "udfPath");
        if (!Array.isArray(modification.args)) throw new ProtocolError("Malformed Add: args must be an array");
      } else if (modification?.type === "Remove") {
        requireNumber(modification, "queryId");
      } else {
        throw new ProtocolError("Malformed ModifyQuerySet: unknown modification");
      }
    }
    let sent: Promise<void> = Promise.resolve();
    await this.serialized(async () => {
      for (const modification of modifications as Array<Record<string, unknown>>) {
        const queryId = modification.queryId as number;
        if (modification.type === "Add") {
          const args = (modification.args as JSONValue[])[0] ?? {};
          const refuse = (errorMessage: string) => connection.pending.push({ type: "QueryFailed", queryId, errorMessage, logLines: [], journal: null });
          if (connection.queries.size >= this.limits.maxSubscriptions && !connection.queries.has(queryId)) {
            // Refused with a clear error rather than served: one socket must not make every commit slow for everyone.
            refuse(`Too many subscriptions on one connection (limit ${this.limits.maxSubscriptions}).`);
            continue;
          }
          await this.subscribe(connection, queryId, canonicalUdfPath(modification.udfPath as string), args);
          if (connection.queries.size > this.limits.freeSubscriptions && connection.queryCostMs() > this.limits.maxQueryMs) {
            // Served, it would cost every commit that touches it, for everyone: refused, as the count limit is.
            connection.pending.pop();
            this.unsubscribe(connection, queryId);
            refuse(`Too many subscriptions on one connection: their queries take more than ${this.limits.maxQueryMs} ms to run.`);
          }
        } else {
          this.unsubscribe(connection, queryId);
          connection.pending.push({ type: "QueryRemoved", queryId });
        }
      }
      sent = this.queueTransitions([{ connection, end: (version) => ({ ...version, querySet: newVersion }) }]);
    });
    // The next message is checked against this version: handled once it went out.
    await sent;
  }

  private async authenticate(connection: Connection, message: Record<string, unknown>) {
    const baseVersion = requireNumber(message, "baseVersion");
    const tokenType = message.tokenType;
    let caller: Caller;
    let expiresAt: number | null = null;
    try {
      if (tokenType === "User") {
        const verified = await this.auth.verify(requireString(message, "value"));
        caller = { kind: "user", identity: verified.identity };
        expiresAt = verified.expiresAt;
      } else if (tokenType === "Admin") {
        if (!sameSecret(requireString(message, "value"), this.adminKey)) throw new AuthFailure("Invalid admin key.");
        caller = { kind: "admin" };
      } else if (tokenType === "None") {
        caller = { kind: "user", identity: null };
      } else {
        throw new ProtocolError("Malformed Authenticate: unknown tokenType");
      }
    } catch (error) {
      if (!(error instanceof AuthFailure)) throw error;
      connection.send({ type: "AuthError", error: error.message, baseVersion, authUpdateAttempted: true });
      return;
    }
    await this.setCaller(connection, caller, baseVersion + 1);
    if (connection.authExpiry !== null) clearTimeout(connection.authExpiry);
    connection.authExpiry = null;
    if (expiresAt !== null) {
      // setTimeout holds at most ~24.8 days; a longer-lived token is checked again then.
      const delay = Math.min(Math.max(0, expiresAt - Date.now()), 2 ** 31 - 1);
      connection.authExpiry = setTimeout(() => {
        connection.queue = connection.queue.then(() => this.expireAuth(connection)).catch((error: unknown) => this.fail(connection, error));
      }, delay);
      connection.authExpiry.unref();
    }
  }

  /**
   * The token ran out: the socket is signed out at once (its queries re-run
   * without an identity) and told with AuthError, on which Convex's client
   * fetches a fresh token and authenticates again.
   */
  private async expireAuth(connection: Connection) {
    connection.authExpiry = null;
    if (connection.closed || connection.caller.kind !== "user" || connection.caller.identity === null) return;
    const identityVersion = connection.version.identity;
    connection.send({ type: "AuthError", error: "Token expired", baseVersion: identityVersion, authUpdateAttempted: false });
    await this.setCaller(connection, { kind: "user", identity: null }, identityVersion);
  }

  private async setCaller(connection: Connection, caller: Caller, identityVersion: number) {
    let sent: Promise<void> = Promise.resolve();
    await this.serialized(async () => {
      connection.caller = caller;
      // Every query of this socket now runs as the new identity.
      for (const [queryId, subscription] of [...connection.queries]) {
        this.unsubscribe(connection, queryId);
        await this.subscribe(connection, queryId, subscription.udfPath, subscription.args);
      }
      sent = this.queueTransitions([{ connection, end: (version) => ({ ...version, identity: identityVersion }) }]);
    });
    await sent;
  }

  private async mutation(connection: Connection, message: Record<string, unknown>) {
    const requestId = requireNumber(message, "requestId");
    const udfPath = requireString(message, "udfPath");
    const args = Array.isArray(message.args) ? ((message.args as JSONValue[])[0] ?? {}) : {};
    const request = connection.sessionId === null ? undefined : { sessionId: connection.sessionId, requestId };
    const outcome = await this.engine.runMutation(udfPath, args, connection.caller, request);
    if (outcome.ok) {
      const ts = outcome.ts ?? this.engine.lastCommitTs;
      connection.send({
        type: "MutationResponse",
        requestId,
        success: true,
        result: outcome.value ?? null,
        ts: encodeTs(ts),
        logLines: outcome.logLines,
      });
      if (ts > connection.awaitingTs) connection.awaitingTs = ts;
      connection.responseSinceTransition = true;
      // The client resolves the mutation once a Transition reaches its ts.
      this.scheduleFlush();
    } else {
      connection.send({
        type: "MutationResponse",
        requestId,
        success: false,
        result: outcome.errorMessage ?? "Mutation failed",
        logLines: outcome.logLines,
        ...(outcome.errorData === undefined ? {} : { errorData: outcome.errorData }),
      });
    }
  }

  private async action(connection: Connection, message: Record<string, unknown>) {
    const requestId = requireNumber(message, "requestId");
    const udfPath = requireString(message, "udfPath");
    const args = Array.isArray(message.args) ? ((message.args as JSONValue[])[0] ?? {}) : {};
    const outcome = await this.engine.runAction(udfPath, args, connection.caller);
    connection.send({
      type: "ActionResponse",
      requestId,
      success: outcome.ok,
      result: outcome.ok ? (outcome.value ?? null) : (outcome.errorMessage ?? "Action failed"),
      logLines: outcome.logLines,
      ...(outcome.errorData === undefined ? {} : { errorData: outcome.errorData }),
    });
  }

  private async subscribe(connection: Connection, queryId: number, udfPath: string, args: JSONValue) {
    const key = subscriptionKey(udfPath, args, connection.caller);
    let subscription = this.subscriptions.get(key);
    if (subscription === undefined) {
      const readSet = new ReadSet();
      const started = performance.now();
      const outcome = await this.runQuery(udfPath, args, connection.caller, readSet);
      subscription = {
        key,
        udfPath,
        args,
        caller: connection.caller,
        outcome,
        readSet,
        serialized: serializeOutcome(outcome),
        subscribers: new Map(),
        costMs: performance.now() - started,
      };
      this.subscriptions.set(key, subscription);
    }
    let ids = subscription.subscribers.get(connection);
    if (ids === undefined) {
      ids = new Set();
      subscription.subscribers.set(connection, ids);
    }
    ids.add(queryId);
    connection.queries.set(queryId, subscription);
    connection.pending.push(modificationFor(queryId, subscription.outcome, subscription.serialized));
  }

  private unsubscribe(connection: Connection, queryId: number) {
    const subscription = connection.queries.get(queryId);
    if (subscription === undefined) return;
    connection.queries.delete(queryId);
    const ids = subscription.subscribers.get(connection);
    ids?.delete(queryId);
    if (ids !== undefined && ids.size === 0) subscription.subscribers.delete(connection);
    if (subscription.subscribers.size === 0) this.subscriptions.delete(subscription.key);
  }

  private async runQuery(udfPath: string, args: JSONValue, caller: Caller, readSet: ReadSet) {
    this.queryRuns += 1;
    return await this.engine.runQuery(udfPath, args, caller, readSet);
  }

  private scheduleFlush() {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    runOutsideFunctions(() =>
      setImmediate(() => {
        this.flushScheduled = false;
        void this.serialized(() => this.flush()).catch((error: unknown) =>
          this.log(`Subscription update failed: ${error instanceof Error ? error.stack : String(error)}`),
        );
      }),
    );
  }

  /**
   * Re-runs the subscriptions the pending commits can affect and sends each
   * client its changes, socket by socket from the cheapest (the cost of its
   * queries) to the costliest: a socket's Transition is queued as soon as
   * its own queries re-ran, and between queries the flush gives way once
   * another commit is waiting (what is left is taken up by that commit's
   * flush). So one costly socket does not hold up the writes of the rest of
   * its department; it hears of a commit once all of its queries caught up.
   */
  private async flush() {
    await this.sendingBeforeLatest;
    const changes = this.pendingChanges;
    this.pendingChanges = [];
    const everything = this.refreshEverything;
    this.refreshEverything = false;
    const ts = this.engine.lastCommitTs;
    const due = new Set<Subscription>();
    for (const subscription of this.subscriptions.values()) {
      if (everything || this.behind.has(subscription) || subscription.readSet.isAffectedBy(changes, this.engine.evaluateRangeFilter)) due.add(subscription);
    }
    this.behind.clear();
    const order = [...this.connections].map((connection) => ({ connection, cost: connection.queryCostMs() })).sort((x, y) => x.cost - y.cost);
    let ready: Connection[] = [];
    let since = performance.now();
    let served = 0;
    const givingWay = () => this.pendingChanges.length > 0 || this.refreshEverything;
    for (const { connection } of order) {
      let caughtUp = true;
      for (const subscription of new Set(connection.queries.values())) {
        if (!due.has(subscription)) continue;
        if (performance.now() - since > FLUSH_SLICE_MS) {
          // Send what is done, and let the event loop read the sockets: a query runs without giving it a turn,
          // so without this a costly socket's many queries kept the next commit from even arriving.
          this.queueDue(ts, ready);
          ready = [];
          await new Promise<void>((resolve) => setImmediate(resolve));
          since = performance.now();
        }
        if (givingWay()) {
          caughtUp = false;
          break;
        }
        due.delete(subscription);
        await this.rerun(subscription);
      }
      if (!caughtUp) break;
      ready.push(connection);
      served += 1;
      if (givingWay()) break;
    }
    this.queueDue(ts, ready);
    // Sockets not reached: their queries still due are re-run by the next flush, which is scheduled.
    for (const subscription of due) if (this.subscriptions.get(subscription.key) === subscription) this.behind.add(subscription);
    if (served < order.length) this.scheduleFlush();
  }

  /** Runs a subscription's query again; its subscribers get the new result if it changed. */
  private async rerun(subscription: Subscription) {
    const readSet = new ReadSet();
    const started = performance.now();
    const outcome = await this.runQuery(subscription.udfPath, subscription.args, subscription.caller, readSet);
    subscription.costMs = performance.now() - started;
    subscription.readSet = readSet;
    const serialized = serializeOutcome(outcome);
    if (serialized.key === subscription.serialized.key) return;
    subscription.outcome = outcome;
    subscription.serialized = serialized;
    for (const [connection, queryIds] of subscription.subscribers) {
      for (const queryId of queryIds) connection.pending.push(modificationFor(queryId, outcome, serialized));
    }
  }

  /** Queues a Transition reaching `ts` for each of `connections` that has results to send or a mutation to settle. */
  private queueDue(ts: bigint, connections: readonly Connection[]) {
    const due: QueuedTransition[] = [];
    for (const connection of connections) {
      if (connection.closed) continue;
      // Send changed results, and reach the ts of every answered mutation so its promise resolves.
      if (connection.pending.length > 0 || connection.awaitingTs > connection.queuedTs || connection.responseSinceTransition) {
        due.push({ connection, end: (version) => ({ ...version, ts: ts > version.ts ? ts : version.ts }), ts });
      }
    }
    // Not awaited: the next flush may run its queries while these wait for the disk.
    void this.queueTransitions(due).catch((error: unknown) =>
      this.log(`Subscription update failed: ${error instanceof Error ? error.stack : String(error)}`),
    );
  }

  /**
   * Takes each socket's pending results now and sends them as a Transition
   * once every commit written so far is on disk (results may show commits
   * still on their way there: group commit), after every Transition queued
   * before. `end` gives the version the Transition reaches from the one the
   * socket is at when it goes out.
   */
  private queueTransitions(due: QueuedTransition[]): Promise<void> {
    if (due.length === 0) return Promise.resolve();
    const seq = this.engine.lastSeq;
    // The results go out as soon as the disk has their commits, not when the event loop next sees a background sync end.
    this.engine.syncNow();
    const batch = due.map(({ connection, end, ts }) => {
      const modifications = connection.pending;
      connection.pending = [];
      connection.responseSinceTransition = false;
      if (ts !== undefined && ts > connection.queuedTs) connection.queuedTs = ts;
      return { connection, end, modifications };
    });
    const sent = this.sending
      .then(() => this.engine.whenDurable(seq))
      .then(() => {
        for (const { connection, end, modifications } of batch) this.sendTransition(connection, modifications, end(connection.version));
      });
    this.sendingBeforeLatest = this.sending;
    this.sending = sent.catch(() => {});
    return sent;
  }

  private sendTransition(connection: Connection, modifications: Modification[], endVersion: StateVersion) {
    const start = JSON.stringify(encodeVersion(connection.version));
    const end = JSON.stringify(encodeVersion(endVersion));
    const skew = connection.clockSkewMs === null ? "" : `,"clientClockSkew":${connection.clockSkewMs}`;
    connection.sendText(`{"type":"Transition","startVersion":${start},"endVersion":${end}${skew},"modifications":[${modifications.map(encodeModification).join(",")}]}`);
    connection.version = endVersion;
  }

  private serialized(work: () => Promise<void>): Promise<void> {
    const next = this.subscriptionWork.then(work);
    this.subscriptionWork = next.catch(() => {});
    return next;
  }

  private pingIdle() {
    const now = Date.now();
    for (const connection of this.connections) {
      if (now - connection.lastSentAt >= PING_INTERVAL_MS) connection.send({ type: "Ping" });
    }
  }

  /** A socket that does not take what is sent to it is cut off, and what waited for it is let go. */
  private closeOverflowing(connection: Connection) {
    if (connection.closed) return;
    this.overflowClosed += 1;
    this.log(`Closing a client connection: more than ${this.limits.maxUnsentBytes} bytes sent to it were not read`);
    // terminate, not close: a close frame would queue behind the unread data.
    connection.socket.terminate();
    this.drop(connection);
  }

  /** A broken message closes only its own socket, with the reason. */
  private fail(connection: Connection, error: unknown) {
    const reason = error instanceof ProtocolError ? error.message : `Internal error: ${error instanceof Error ? error.message : String(error)}`;
    this.log(`Closing a client connection: ${reason}`);
    if (!connection.closed) connection.socket.close(error instanceof ProtocolError ? 1002 : 1011, truncateReason(reason));
    this.drop(connection);
  }

  private drop(connection: Connection) {
    if (connection.closed) return;
    connection.closed = true;
    if (connection.authExpiry !== null) clearTimeout(connection.authExpiry);
    this.connections.delete(connection);
    void this.serialized(async () => {
      for (const queryId of [...connection.queries.keys()]) this.unsubscribe(connection, queryId);
    });
  }
}

function subscriptionKey(udfPath: string, args: JSONValue, caller: Caller): string {
  const who = caller.kind === "admin" ? "admin" : (caller.identity?.tokenIdentifier ?? "anonymous");
  return `${udfPath}\u0000${JSON.stringify(args)}\u0000${who}`;
}

interface SerializedOutcome {
  /** Equal for equal results (a value and an error never compare equal). */
  key: string;
  /** JSON text of the value, for a successful result. */
  valueJson: string | null;
}

function serializeOutcome(outcome: FunctionOutcome): SerializedOutcome {
  if (outcome.ok) {
    const valueJson = JSON.stringify(outcome.value ?? null);
    return { key: `ok ${valueJson}`, valueJson };
  }
  return { key: `error ${JSON.stringify([outcome.errorMessage, outcome.errorData ?? null])}`, valueJson: null };
}

function modificationFor(queryId: number, outcome: FunctionOutcome, serialized: SerializedOutcome): Modification {
  if (outcome.ok) {
    return { type: "QueryUpdated", queryId, valueJson: serialized.valueJson!, logLines: outcome.logLines, journal: null };
  }
  return {
    type: "QueryFailed",
    queryId,
    errorMessage: outcome.errorMessage ?? "Query failed",
    logLines: outcome.logLines,
    journal: null,
    ...(outcome.errorData === undefined ? {} : { errorData: outcome.errorData }),
  };
}

/** A modification as the client reads it: a QueryUpdated's value spliced in from its JSON text. */
function encodeModification(modification: Modification): string {
  if (modification.type !== "QueryUpdated") return JSON.stringify(modification);
  const { queryId, valueJson, logLines } = modification;
  return `{"type":"QueryUpdated","queryId":${queryId},"value":${valueJson},"logLines":${JSON.stringify(logLines)},"journal":null}`;
}

function encodeVersion(version: StateVersion) {
  return { querySet: version.querySet, identity: version.identity, ts: encodeTs(version.ts) };
}

function requireNumber(message: Record<string, unknown>, field: string): number {
  const value = message[field];
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new ProtocolError(`Malformed ${String(message.type)}: ${field} must be a non-negative integer`);
  }
  return value;
}

function requireString(message: Record<string, unknown>, field: string): string {
  const value = message[field];
  if (typeof value !== "string") throw new ProtocolError(`Malformed ${String(message.type)}: ${field} must be a string`);
  return value;
}

/** WebSocket close reasons are limited to 123 bytes. */
function truncateReason(reason: string): string {
  return Buffer.byteLength(reason) <= 120 ? reason : `${reason.slice(0, 110)}…`;
}
