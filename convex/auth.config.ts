// Who may sign in. Convex Auth (convex/auth.ts) signs its own tokens with the
// deployment's JWT_PRIVATE_KEY and serves the keys from its HTTP actions, so
// the deployment trusts its own site URL. Clerk may be configured as well:
// `npx convex env set CLERK_JWT_ISSUER_DOMAIN https://<your-app>.clerk.accounts.dev`
// (with a Clerk JWT template named "convex"). The offline backend reads this
// file too and verifies tokens the same way.
// auth.config.ts is read by the Convex CLI at push time, where process.env is the documented source.
// eslint-disable-next-line @convex-dev/no-process-env
const siteUrl = process.env.CONVEX_SITE_URL;
// eslint-disable-next-line @convex-dev/no-process-env
const clerkDomain = process.env.CLERK_JWT_ISSUER_DOMAIN;

export default {
  providers: [
    ...(siteUrl ? [{ domain: siteUrl, applicationID: "convex" }] : []),
    ...(clerkDomain ? [{ domain: clerkDomain, applicationID: "convex" }] : []),
  ],
};
