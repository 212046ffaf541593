"use client";

import { useCallback, useEffect, useState } from "react";
import { localAlertMode, type LocalAlertMode } from "../lib/tier-style";
import type { TierStatus } from "./use-tier-status";

const STORAGE_KEY = "warden.localModeAcknowledged";

/** The full-screen local-mode alert's state and its acknowledgement. */
export interface LocalModeAlert {
  readonly mode: LocalAlertMode;
  readonly acknowledge: () => void;
}

/**
 * Whether to show the full-screen red alert, the red banner, or nothing. The
 * acknowledgement covers one stay in `local` and survives a reload of the tab
 * (sessionStorage), so an engineer who saw it is not blocked again by every refresh.
 */
export function useLocalModeAlert(status: TierStatus): LocalModeAlert {
  const [acknowledged, setAcknowledged] = useState<string | null>(null);
  useEffect(() => {
    setAcknowledged(window.sessionStorage.getItem(STORAGE_KEY));
  }, []);
  const periodKey = status.periodKey;
  const acknowledge = useCallback(() => {
    if (periodKey === null) return;
    window.sessionStorage.setItem(STORAGE_KEY, periodKey);
    setAcknowledged(periodKey);
  }, [periodKey]);
  return {
    mode: localAlertMode(status.tier ?? undefined, periodKey ?? undefined, acknowledged),
    acknowledge,
  };
}
