// Who may sign in on a real Convex deployment: Clerk, configured with
// `npx convex env set CLERK_JWT_ISSUER_DOMAIN https://<your-app>.clerk.accounts.dev`
// (and a Clerk JWT template named "convex"). The offline backend verifies its
// own local sign-in tokens instead and does not read this file.
// auth.config.ts is read by the Convex CLI at push time, where process.env is the documented source.
// eslint-disable-next-line @convex-dev/no-process-env
const clerkDomain = process.env.CLERK_JWT_ISSUER_DOMAIN;

export default {
  providers: clerkDomain ? [{ domain: clerkDomain, applicationID: "convex" }] : [],
};
