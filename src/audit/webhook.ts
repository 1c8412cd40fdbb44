// How a webhook delivery reads on the admin's screen: its state in words and colour, and how many tries it took.
import type { FunctionReturnType } from "convex/server";
import type { api } from "../../convex/_generated/api";
import { BADGE_TONES } from "../components/ui/Badge";

export type WebhookDelivery = NonNullable<FunctionReturnType<typeof api.webhooks.get>>["deliveries"][number];

/** A delivery's badge: delivered, failed, waiting for its next try, or on its way. */
export function deliveryStatus(delivery: { status: WebhookDelivery["status"]; nextAttemptAt?: number }): { label: string; className: string } {
  if (delivery.status === "delivered") return { label: "Delivered", className: BADGE_TONES.success };
  if (delivery.status === "failed") return { label: "Failed", className: BADGE_TONES.failure };
  if (delivery.nextAttemptAt !== undefined) return { label: "Retrying", className: BADGE_TONES.attention };
  return { label: "Sending", className: BADGE_TONES.busy };
}

/** "1 attempt", "3 attempts"; nothing before the first. */
export function attemptsLabel(attempts: number): string | null {
  if (attempts === 0) return null;
  return attempts === 1 ? "1 attempt" : `${attempts} attempts`;
}
