// Convex components this app installs. `npm run codegen` adds them to
// `components` in convex/_generated/api; the offline backend mounts them.
import { defineApp } from "convex/server";
import presence from "@convex-dev/presence/convex.config";
import rateLimiter from "@convex-dev/rate-limiter/convex.config";

const app = defineApp();
app.use(rateLimiter);
app.use(presence);

export default app;
