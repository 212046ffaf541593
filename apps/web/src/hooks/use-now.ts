"use client";

import { useEffect, useState } from "react";

/**
 * The browser's clock, re-read every `intervalMs` (default 1 s) so countdowns and ages
 * tick without refetching anything.
 */
export function useNow(intervalMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
