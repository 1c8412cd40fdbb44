import { useMutation, useQuery } from "convex/react";
import { useEffect, useState } from "react";
import { api } from "../../convex/_generated/api";
import type { Id } from "../../convex/_generated/dataModel";

/**
 * Keeps this tab in a department's presence room (`convex/presence.ts`, on the
 * `@convex-dev/presence` component) and returns who is there. A heartbeat
 * every `intervalMs`; leaving (unmount, or the tab going to the background)
 * disconnects over the same signed-in client. A closed tab simply stops
 * beating and drops out 2.5 intervals later: the package's own hook sends a
 * cross-origin `sendBeacon` on unload, which browsers refuse.
 */
export function useBoardPresence(departmentId: Id<"departments">, intervalMs: number) {
  const heartbeat = useMutation(api.presence.heartbeat);
  const disconnect = useMutation(api.presence.disconnect);
  const [roomToken, setRoomToken] = useState<string | null>(null);

  useEffect(() => {
    const sessionId = crypto.randomUUID();
    let sessionToken: string | null = null;
    let stopped = false;
    let inFlight = false;

    const beat = () => {
      if (stopped || inFlight || document.hidden) return;
      inFlight = true;
      heartbeat({ roomId: departmentId, userId: "", sessionId, interval: intervalMs })
        .then((tokens) => {
          if (stopped) {
            void disconnect({ sessionToken: tokens.sessionToken }).catch(() => {});
            return;
          }
          sessionToken = tokens.sessionToken;
          setRoomToken(tokens.roomToken);
        })
        // Presence is a nicety: a failed beat is retried at the next interval.
        .catch(() => {})
        .finally(() => {
          inFlight = false;
        });
    };
    const leave = () => {
      if (sessionToken !== null) void disconnect({ sessionToken }).catch(() => {});
    };
    const onVisibility = () => (document.hidden ? leave() : beat());

    beat();
    const timer = setInterval(beat, intervalMs);
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      stopped = true;
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisibility);
      leave();
    };
  }, [departmentId, intervalMs, heartbeat, disconnect]);

  return useQuery(api.presence.list, roomToken === null ? "skip" : { roomToken });
}
