import { ConvexReactClient } from "convex/react";
import { CONVEX_URL } from "./config";

/**
 * The app's one Convex connection; both auth modes attach to it.
 * `initialAuthTokenReuse`: a token kept from the last visit, once the server
 * accepts it, is used until shortly before it expires (timed with the
 * server's clock skew) instead of being swapped at once for a fresh one; the
 * swap re-authenticated the socket and re-ran every query the page had just
 * loaded, which cost the 2,000-card board about a second.
 */
export const convex = new ConvexReactClient(CONVEX_URL, { initialAuthTokenReuse: true });
