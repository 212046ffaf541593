"use client";

import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { LocalModeAlert } from "../../components/local-mode-alert";
import { SideNav } from "../../components/side-nav";
import { TopBar } from "../../components/top-bar";
import { useAlerts } from "../../hooks/use-alerts";
import { useLiveUpdates } from "../../hooks/use-live-updates";
import { useLocalModeAlert } from "../../hooks/use-local-mode-alert";
import { useNow } from "../../hooks/use-now";
import { useSession } from "../../hooks/use-session";
import { useTierStatus } from "../../hooks/use-tier-status";

/** Every console page: the tier on top, the local-mode alert, navigation, live updates. */
export default function ConsoleLayout({ children }: { readonly children: ReactNode }) {
  const pathname = usePathname();
  const session = useSession();
  const tier = useTierStatus();
  const localAlert = useLocalModeAlert(tier);
  const live = useLiveUpdates();
  const alerts = useAlerts();
  const now = useNow(1_000);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <TopBar
        tierStyle={tier.style}
        unreachable={tier.unreachable}
        tierSince={tier.since}
        nowMs={now}
        live={live}
        username={session.username}
        role={session.role}
        onLogout={session.logout}
        loggingOut={session.loggingOut}
      />
      <div className="banner-slot">
        {tier.tier === "mysql" ? (
          <div className="tier-banner tone-amber" role="status" data-testid="mysql-banner">
            DEGRADED · MySQL tier: Redis is down; grants are made on MySQL (fenced, slower).{" "}
            {tier.reason}
          </div>
        ) : null}
        <LocalModeAlert
          mode={localAlert.mode}
          since={tier.since}
          reason={tier.reason}
          nowMs={now}
          onAcknowledge={localAlert.acknowledge}
        />
      </div>
      <SideNav pathname={pathname} criticalAlerts={alerts.critical} />
      <main id="main" className="content">
        {children}
      </main>
    </div>
  );
}
