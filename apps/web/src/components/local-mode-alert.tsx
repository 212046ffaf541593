"use client";

import { useEffect, useRef } from "react";
import { formatDuration } from "../lib/format-time";

/** Props of {@link LocalModeAlert}. */
export interface LocalModeAlertProps {
  readonly mode: "none" | "full-screen" | "banner";
  readonly since: number | null;
  readonly reason: string | null;
  readonly nowMs: number;
  readonly onAcknowledge: () => void;
}

/**
 * Local mode: a full-screen red modal nobody can miss until it is acknowledged, then a red
 * banner that stays while the tier is `local`. Escape acknowledges too (a deliberate key).
 */
export function LocalModeAlert({ mode, since, reason, nowMs, onAcknowledge }: LocalModeAlertProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    if (mode === "full-screen" && !dialog.open) dialog.showModal();
    if (mode !== "full-screen" && dialog.open) dialog.close();
  }, [mode]);
  const duration = since === null ? "" : ` for ${formatDuration(nowMs - since)}`;
  return (
    <>
      <dialog
        ref={ref}
        className="local-alert"
        role="alertdialog"
        aria-labelledby="local-alert-title"
        aria-describedby="local-alert-text"
        data-testid="local-alert"
        onCancel={(event) => {
          event.preventDefault();
          onAcknowledge();
        }}
      >
        {mode === "full-screen" ? (
          <div className="local-alert-body">
            <p>WARDEN · TIER LOCAL{duration}</p>
            <h1 id="local-alert-title">
              Redis and MySQL are both down: locks are no longer cross-process
            </h1>
            <p id="local-alert-text">
              Resources with <strong>localFallback=allow</strong> now get in-process locks with no
              fence; two processes may both think they hold the same key. Every other resource is
              refused (fail-closed). Bring Redis or MySQL back.
            </p>
            {reason ? <p>Reason: {reason}</p> : null}
            <button type="button" className="button" autoFocus onClick={onAcknowledge}>
              Acknowledge
            </button>
          </div>
        ) : null}
      </dialog>
      {mode === "banner" ? (
        <div className="tier-banner tone-red" role="alert" data-testid="local-banner">
          LOCAL MODE{duration}: no cross-process exclusion, no fences. Only localFallback=allow
          resources get locks.
        </div>
      ) : null}
    </>
  );
}
