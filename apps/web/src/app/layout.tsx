import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { Providers } from "../trpc/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Warden console", template: "%s · Warden" },
  description: "Locks, holders, tiers and audit of the Warden lock service.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

/** The document: every page runs inside React Query + tRPC. */
export default function RootLayout({ children }: { readonly children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
