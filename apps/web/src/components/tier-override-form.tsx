"use client";

import { useState } from "react";
import { ConfirmDialog } from "./confirm-dialog";

type Choice = "auto" | "redis" | "mysql" | "local";

/** Props of {@link TierOverrideForm}. */
export interface TierOverrideFormProps {
  readonly canOperate: boolean;
  readonly forced: boolean;
  readonly pending: boolean;
  readonly error: string | null;
  readonly onOverride: (
    tier: "redis" | "mysql" | "local" | null,
    reason: string,
    onDone: () => void,
  ) => void;
  readonly onReset: () => void;
}

/** Pins a tier (or hands it back to the controller) with a reason, after a confirmation. */
export function TierOverrideForm(props: TierOverrideFormProps) {
  const [choice, setChoice] = useState<Choice>("auto");
  const [reason, setReason] = useState("");
  const [confirming, setConfirming] = useState(false);
  const disabled = !props.canOperate;
  const tooShort = reason.trim().length < 3;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (!tooShort) setConfirming(true);
      }}
    >
      <fieldset disabled={disabled} style={{ border: 0, padding: 0, margin: 0 }}>
        <div className="form-grid">
          <div className="field">
            <label htmlFor="override-tier">Tier</label>
            <select
              id="override-tier"
              value={choice}
              onChange={(event) => setChoice(event.target.value as Choice)}
            >
              <option value="auto">automatic (controller decides)</option>
              <option value="redis">pin redis</option>
              <option value="mysql">pin mysql</option>
              <option value="local">pin local (no fences!)</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="override-reason">Reason (audited)</label>
            <input
              id="override-reason"
              type="text"
              value={reason}
              placeholder="e.g. Redis maintenance, CHG-881"
              onChange={(event) => setReason(event.target.value)}
            />
          </div>
        </div>
        <div className="actions" style={{ marginTop: 12 }}>
          <button type="submit" className="button button-danger" disabled={tooShort}>
            {choice === "auto" ? "Hand back to controller" : `Pin ${choice}`}
          </button>
          {disabled ? <span className="faint">Operators only.</span> : null}
          {props.forced ? (
            <span className="pill tone-amber">currently pinned by an operator</span>
          ) : null}
        </div>
      </fieldset>
      <ConfirmDialog
        open={confirming}
        title={
          choice === "auto" ? "Hand the tier back to the controller?" : `Pin the tier to ${choice}?`
        }
        confirmLabel="Confirm"
        pending={props.pending}
        error={props.error}
        onConfirm={() =>
          props.onOverride(choice === "auto" ? null : choice, reason.trim(), () => {
            setConfirming(false);
            setReason("");
          })
        }
        onClose={() => {
          props.onReset();
          setConfirming(false);
        }}
      >
        <p>
          Every server instance follows within a second; the epoch is bumped so no older grant can
          write after it. Reason: <em>{reason}</em>
        </p>
      </ConfirmDialog>
    </form>
  );
}
