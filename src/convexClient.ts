import { ConvexReactClient } from "convex/react";
import { CONVEX_URL } from "./config";

/** The app's one Convex connection; both auth modes attach to it. */
export const convex = new ConvexReactClient(CONVEX_URL);
