"use node";
/**
 * A2A push notifications for the squad's A2A tasks (issue 45): while a task
 * has a push target, this action reads the task from its card every
 * PUSH_POLL_MS and POSTs it (the protocol's StreamResponse `{task}`,
 * serialized by the SDK's V1PushNotificationSerializer, with the client's
 * token in `X-A2A-Notification-Token`) each time its state changes, until
 * the state is final. No second state machine: it pushes what GetTask would
 * answer. The target is checked as a webhook's is, where the connection is
 * made: every address its name resolves to must be public (lib/webhooks
 * `isPublicAddress`), no redirect is followed, MAESTRO_WEBHOOK_ALLOW_PRIVATE=1
 * lifts the address rule for self-hosters and local tests.
 */
import { V1PushNotificationSerializer } from "@a2a-js/sdk/server";
import { v } from "convex/values";
import { internal } from "./_generated/api";
import { internalAction } from "./_generated/server";
import { isFinalA2AState, type A2AServerState } from "./lib/a2aServer";
import { protocolTask } from "./lib/a2aServerWire";
import { webhookAllowPrivateFromEnv } from "./lib/config";
import { checkWebhookUrl, WEBHOOK_TIMEOUT_MS } from "./lib/webhooks";
import { postOnce } from "./publicOutbound";

/** How often a followed task is read again. */
export const PUSH_POLL_MS = 2_000;
/** Rounds a task is followed at most (a day), so a card nobody finishes does not poll for ever. */
const MAX_PUSH_ROUNDS = (24 * 60 * 60 * 1000) / PUSH_POLL_MS;

/** POSTs `body` once, following no redirect; the answer's status. */
async function post(url: string, headers: Record<string, string>, body: string, allowPrivate: boolean): Promise<number> {
  const checked = new URL(checkWebhookUrl(url, allowPrivate));
  return (await postOnce(checked, headers, body, { allowPrivate, timeoutMs: WEBHOOK_TIMEOUT_MS, what: "pushes" })).status;
}

/** One round: push the task when its state changed since the last push; follow it again unless it is final or its target changed. */
export const follow = internalAction({
  args: { taskId: v.id("tasks"), url: v.string(), round: v.number() },
  returns: v.null(),
  handler: async (ctx, { taskId, url, round }) => {
    const payload = await ctx.runQuery(internal.a2aServer.pushPayload, { taskId, url });
    if (payload === null) return null;
    const { view, token, pushedState } = payload;
    let delivered = pushedState === view.state;
    if (!delivered) {
      const { body, contentType } = new V1PushNotificationSerializer().serialize({ payload: { $case: "task", value: protocolTask(view) } }, protocolTask(view));
      try {
        const status = await post(url, { "Content-Type": contentType, "User-Agent": "Maestro-A2A/1", ...(token === "" ? {} : { "X-A2A-Notification-Token": token }) }, body, webhookAllowPrivateFromEnv());
        delivered = status >= 200 && status < 300;
        if (!delivered) console.warn(`A2A push for ${taskId}: the receiver answered HTTP ${status}`);
      } catch (failure) {
        console.warn(`A2A push for ${taskId} failed: ${failure instanceof Error ? failure.message : String(failure)}`);
      }
      if (delivered) await ctx.runMutation(internal.a2aServer.recordPushed, { taskId, url, state: view.state });
    }
    if (delivered && isFinalA2AState(view.state as A2AServerState)) return null;
    if (round + 1 < MAX_PUSH_ROUNDS) await ctx.scheduler.runAfter(PUSH_POLL_MS, internal.a2aServerPush.follow, { taskId, url, round: round + 1 });
    return null;
  },
});
