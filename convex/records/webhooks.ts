/** A department's outbound webhook and its deliveries: the address, the signing secret, each attempt's outcome. */
import type { Doc, Id } from "../_generated/dataModel";
import type { MutationCtx, QueryCtx } from "../_generated/server";
import { MaestroError } from "../lib/errors";

/** Deliveries the settings show. */
const RECENT_DELIVERIES = 20;

/** The department's webhook, if it has one. */
export async function webhookOf(ctx: QueryCtx, departmentId: Id<"departments">): Promise<Doc<"webhooks"> | null> {
  return await ctx.db
    .query("webhooks")
    .withIndex("by_department", (q) => q.eq("departmentId", departmentId))
    .unique();
}

/** The webhook's latest deliveries, newest first. */
export async function recentDeliveries(ctx: QueryCtx, webhookId: Id<"webhooks">): Promise<Array<Doc<"webhookDeliveries">>> {
  return await ctx.db
    .query("webhookDeliveries")
    .withIndex("by_webhook", (q) => q.eq("webhookId", webhookId))
    .order("desc")
    .take(RECENT_DELIVERIES);
}

/** The latest deliveries as the admin reads them: each with the type of the event it carried. */
export async function recentDeliveriesWithType(ctx: QueryCtx, webhookId: Id<"webhooks">) {
  const out = [];
  for (const delivery of await recentDeliveries(ctx, webhookId)) {
    const event = await ctx.db.get("events", delivery.eventId);
    out.push({ delivery, eventType: event?.type });
  }
  return out;
}

/** Sets (or replaces) the department's webhook with a checked URL and a fresh secret. */
export async function saveWebhook(ctx: MutationCtx, departmentId: Id<"departments">, url: string, secret: string, createdBy: Id<"users">): Promise<void> {
  const existing = await webhookOf(ctx, departmentId);
  if (existing !== null) await ctx.db.patch("webhooks", existing._id, { url, secret, createdBy });
  else await ctx.db.insert("webhooks", { departmentId, url, secret, createdBy });
}

export async function removeWebhook(ctx: MutationCtx, departmentId: Id<"departments">): Promise<void> {
  const existing = await webhookOf(ctx, departmentId);
  if (existing === null) throw new MaestroError("NOT_FOUND", "This department has no webhook.");
  await ctx.db.delete("webhooks", existing._id);
}

/** A pending delivery with its webhook and event; null when it was settled, or its webhook or event is gone. */
export async function pendingDelivery(ctx: QueryCtx, deliveryId: Id<"webhookDeliveries">) {
  const delivery = await ctx.db.get("webhookDeliveries", deliveryId);
  if (delivery === null || delivery.status !== "pending") return null;
  // A webhook removed or replaced since: the delivery goes nowhere.
  const webhook = await ctx.db.get("webhooks", delivery.webhookId);
  const event = await ctx.db.get("events", delivery.eventId);
  if (webhook === null || event === null) return null;
  return { delivery, webhook, event };
}

/** Records one attempt; returns whether another is due (`retryInMs` given and the attempt failed). */
export async function recordDeliveryAttempt(
  ctx: MutationCtx,
  deliveryId: Id<"webhookDeliveries">,
  attempt: { ok: boolean; status?: number; error?: string; retryInMs?: number },
): Promise<boolean> {
  const delivery = await ctx.db.get("webhookDeliveries", deliveryId);
  if (delivery === null) return false;
  const final = attempt.ok || attempt.retryInMs === undefined;
  await ctx.db.patch("webhookDeliveries", deliveryId, {
    attempts: delivery.attempts + 1,
    status: attempt.ok ? "delivered" : final ? "failed" : "pending",
    lastStatus: attempt.status,
    lastError: attempt.error,
    nextAttemptAt: final ? undefined : Date.now() + attempt.retryInMs!,
  });
  return !final;
}
