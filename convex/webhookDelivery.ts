"use node";
/**
 * One webhook delivery attempt (convex/webhooks.ts keeps the webhook and its
 * deliveries), in Node because the receiver's address is checked where the
 * connection is made: the host name is resolved for this very connection
 * and every address it resolves to must be public (lib/webhooks
 * `isPublicAddress`), so a name that resolves to the machine itself, or
 * changes its answer between a check and the connection, reaches nothing.
 * Redirects are not followed: a 3xx is a failed delivery. What failed is
 * logged for the operator; the admin sees one generic reason.
 * MAESTRO_WEBHOOK_ALLOW_PRIVATE=1 lifts the address rule for self-hosters.
 */
import { v } from "convex/values";
import { internal } from "./_generated/api";
import { internalAction } from "./_generated/server";
import { webhookAllowPrivateFromEnv } from "./lib/config";
import { checkWebhookUrl, DELIVERY_FAILED, retryDelayMs, shouldRetry, signBody, SIGNATURE_HEADER, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_TIMEOUT_MS } from "./lib/webhooks";
import { postOnce, RefusedAddress } from "./publicOutbound";

/** POSTs `body` once, following no redirect; the answer's status and Retry-After. */
async function post(url: string, headers: Record<string, string>, body: string, allowPrivate: boolean): Promise<{ status: number; retryAfter: string | null }> {
  let checked: URL;
  try {
    // The URL was checked when it was saved; again here, for webhooks saved under older rules.
    checked = new URL(checkWebhookUrl(url, allowPrivate));
  } catch {
    throw new RefusedAddress("the URL's host is a loopback or private address");
  }
  return await postOnce(checked, headers, body, { allowPrivate, timeoutMs: WEBHOOK_TIMEOUT_MS, what: "webhooks" });
}

/** One attempt: POST the signed event; on a retryable failure, the next attempt is scheduled with backoff. */
export const deliver = internalAction({
  args: { deliveryId: v.id("webhookDeliveries") },
  returns: v.null(),
  handler: async (ctx, { deliveryId }) => {
    const payload = await ctx.runQuery(internal.webhooks.deliveryPayload, { deliveryId });
    if (payload === null) return null;
    const body = JSON.stringify(payload.event);
    const attempt = payload.attempts + 1;
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": "Maestro-Webhook/1",
      "X-Maestro-Event": payload.event.type,
      "X-Maestro-Delivery": deliveryId,
      [SIGNATURE_HEADER]: await signBody(payload.secret, body),
    };
    let status: number | null = null;
    let retryAfter: string | null = null;
    let retryable = true;
    try {
      ({ status, retryAfter } = await post(payload.url, headers, body, webhookAllowPrivateFromEnv()));
      if (status >= 200 && status < 300) {
        await ctx.runMutation(internal.webhooks.recordAttempt, { deliveryId, ok: true, status });
        return null;
      }
      console.warn(`webhook delivery ${deliveryId}: the receiver answered HTTP ${status}`);
    } catch (failure) {
      retryable = !(failure instanceof RefusedAddress);
      console.warn(`webhook delivery ${deliveryId} failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    }
    const retry = retryable && shouldRetry(status) && attempt < WEBHOOK_MAX_ATTEMPTS;
    await ctx.runMutation(internal.webhooks.recordAttempt, {
      deliveryId,
      ok: false,
      status: status ?? undefined,
      error: DELIVERY_FAILED,
      retryInMs: retry ? retryDelayMs(attempt, retryAfter) : undefined,
    });
    return null;
  },
});

/**
 * One attempt to hand an agent that runs outside Maestro its work
 * (reactions/outside): the envelope is POSTed to the agent's endpoint,
 * signed with the agent's own secret, by the same rules as a webhook (the
 * address checked for this very connection, no redirect followed), and
 * tried again with backoff on a retryable failure. An agent brought back
 * inside, or whose endpoint was removed, is sent nothing more.
 */
export const deliverToAgent = internalAction({
  args: { agentId: v.id("agents"), deliveryId: v.string(), body: v.string(), attempt: v.number() },
  returns: v.null(),
  handler: async (ctx, { agentId, deliveryId, body, attempt }) => {
    const endpoint = await ctx.runQuery(internal.agents.endpointOf, { agentId });
    if (endpoint === null) return null;
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": "Maestro-Webhook/1",
      "X-Maestro-Event": "maestro.work",
      "X-Maestro-Delivery": deliveryId,
      [SIGNATURE_HEADER]: await signBody(endpoint.secret, body),
    };
    let status: number | null = null;
    let retryAfter: string | null = null;
    let retryable = true;
    try {
      ({ status, retryAfter } = await post(endpoint.url, headers, body, webhookAllowPrivateFromEnv()));
      if (status >= 200 && status < 300) return null;
      console.warn(`agent endpoint delivery ${deliveryId}: the receiver answered HTTP ${status}`);
    } catch (failure) {
      retryable = !(failure instanceof RefusedAddress);
      console.warn(`agent endpoint delivery ${deliveryId} failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    }
    if (retryable && shouldRetry(status) && attempt < WEBHOOK_MAX_ATTEMPTS) {
      await ctx.scheduler.runAfter(retryDelayMs(attempt, retryAfter), internal.webhookDelivery.deliverToAgent, { agentId, deliveryId, body, attempt: attempt + 1 });
    }
    return null;
  },
});
