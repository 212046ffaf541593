import type { NextConfig } from "next";

// The tRPC proxy reads the server URL at request time (src/app/trpc/[...path]/route.ts),
// so nothing here depends on where the Warden server runs.
const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The console imports the server's zod schemas from source (`@warden/server/schemas`).
  transpilePackages: ["@warden/server"],
  typescript: { tsconfigPath: "./tsconfig.json" },
};

export default config;
