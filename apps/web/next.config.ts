import type { NextConfig } from "next";

interface WebpackConfig {
  resolve: { extensionAlias?: Record<string, string[]> };
}

// The tRPC proxy reads the server URL at request time (src/app/trpc/[...path]/route.ts),
// so nothing here depends on where the Warden server runs.
const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The console imports the server's zod schemas from source (`@warden/server/schemas`).
  transpilePackages: ["@warden/server", "@warden/contract"],
  typescript: { tsconfigPath: "./tsconfig.json" },
  // The workspace's TypeScript is NodeNext-style (`./limits.js` names `limits.ts`). Turbopack
  // cannot map that yet, so builds use webpack (`--webpack`) with this alias (docs/decisions/0020).
  webpack: (webpackConfig: WebpackConfig) => {
    webpackConfig.resolve.extensionAlias = {
      ".js": [".ts", ".tsx", ".js"],
      ".mjs": [".mts", ".mjs"],
    };
    return webpackConfig;
  },
};

export default config;
