// Convex components this app installs. `npm run codegen` adds them to
// `components` in convex/_generated/api; the offline backend mounts them.
import { defineApp } from "convex/server";
import rateLimiter from "@convex-dev/rate-limiter/convex.config";

const app = defineApp();
app.use(rateLimiter);

export default app;
