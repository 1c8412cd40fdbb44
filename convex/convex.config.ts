import { defineApp } from "convex/server";
import rateLimiter from "@convex-dev/rate-limiter/convex.config";

const app = defineApp();
// Rate limits for sign-in, agent API keys and chat (see convex/lib/rateLimits.ts users).
app.use(rateLimiter);

export default app;
