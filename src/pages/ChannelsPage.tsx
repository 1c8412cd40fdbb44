// The channels route (`/d/:slug/channels[/:channelId]`): channels and DMs, the one in the address open.
import { useNavigate, useParams } from "react-router";
import type { Id } from "../../convex/_generated/dataModel";
import { ChannelsView } from "../channels/ChannelsView";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { channelsPath } from "../shell/addresses";
import { useDepartment } from "../shell/workspace";

/** Picking a channel is a new address (Back returns to the last one); a failure shows in the page's place. */
export function ChannelsPage() {
  const { _id: departmentId, slug } = useDepartment();
  const channelId = (useParams().channelId ?? null) as Id<"channels"> | null;
  const navigate = useNavigate();
  return (
    <ErrorBoundary>
      <ChannelsView departmentId={departmentId} channelId={channelId} onSelect={(id) => void navigate(channelsPath(slug, id ?? undefined))} />
    </ErrorBoundary>
  );
}
