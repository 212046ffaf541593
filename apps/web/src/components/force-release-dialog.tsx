"use client";

import { useState } from "react";
import type { ForceReleaseTarget } from "../hooks/use-force-release";
import { Dialog } from "./dialog";

/** Props of {@link ForceReleaseDialog}. */
export interface ForceReleaseDialogProps {
  readonly target: ForceReleaseTarget | null;
  readonly pending: boolean;
  readonly error: string | null;
  readonly onConfirm: (reason: string) => void;
  readonly onClose: () => void;
}

/** Confirms a force-release: what is released, from whom, and a required reason for the audit. */
export function ForceReleaseDialog({
  target,
  pending,
  error,
  onConfirm,
  onClose,
}: ForceReleaseDialogProps) {
  const [reason, setReason] = useState("");
  const tooShort = reason.trim().length < 3;
  const rw = target?.kind === "read" || target?.kind === "write";
  const grant = rw || target?.kind === "permit";
  const close = () => {
    setReason("");
    onClose();
  };
  return (
    <Dialog
      open={target !== null}
      title={grant ? `Force release this ${target?.kind ?? ""} grant?` : "Force release this lock?"}
      role="alertdialog"
      onClose={close}
      actions={
        <>
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button
            type="submit"
            form="force-release-form"
            className="button button-danger"
            disabled={pending || tooShort}
          >
            {pending ? "Releasing…" : "Force release"}
          </button>
        </>
      }
    >
      {target ? (
        <form
          id="force-release-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (!tooShort) onConfirm(reason.trim());
          }}
        >
          {target.kind === "permit" ? (
            <p>
              This permit grant ends now (the key&apos;s other permits stay held); its SDK aborts
              the permit&apos;s signal on its next renewal, and a waiting acquire may take the freed
              permits.
            </p>
          ) : rw ? (
            <p>
              This {target.kind} grant ends now
              {target.kind === "read"
                ? " (only this one: the key's other readers keep theirs)"
                : ""}
              ; its SDK aborts the lease&apos;s signal on its next renewal, and a writer waiting for
              the key may be granted. Writes with this fence are rejected by fence guards once a
              writer with a larger fence writes.
            </p>
          ) : (
            <p>
              The holder&apos;s lease ends now; its SDK aborts the lock&apos;s signal on its next
              renewal. Its writes with this fence will be rejected by fence guards once a new holder
              writes.
            </p>
          )}
          <dl className="facts">
            <dt>resource</dt>
            <dd className="mono">{target.resource}</dd>
            <dt>key</dt>
            <dd className="mono">{target.businessKey}</dd>
            {grant ? (
              <>
                <dt>grant</dt>
                <dd>{target.kind}</dd>
              </>
            ) : null}
            <dt>holder</dt>
            <dd className="mono">
              {target.clientId} / {target.ownerId}
            </dd>
            <dt>fence</dt>
            <dd className="fence">{target.fence ?? "none (local)"}</dd>
            <dt>lockId</dt>
            <dd className="mono">{target.lockId}</dd>
          </dl>
          <div className="field" style={{ marginTop: 12 }}>
            <label htmlFor="force-release-reason">Reason (recorded in the audit)</label>
            <textarea
              id="force-release-reason"
              rows={2}
              required
              autoFocus
              value={reason}
              aria-describedby="force-release-reason-hint"
              onChange={(event) => setReason(event.target.value)}
            />
            <span className="field-hint" id="force-release-reason-hint">
              At least 3 characters, e.g. &quot;job stuck on dead host, INC-1234&quot;.
            </span>
          </div>
          {error ? (
            <div className="notice tone-red" role="alert" style={{ marginTop: 8 }}>
              {error}
            </div>
          ) : null}
        </form>
      ) : null}
    </Dialog>
  );
}
