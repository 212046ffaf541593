"use client";

import type { ReactNode } from "react";
import { Dialog } from "./dialog";

/** Props of {@link ConfirmDialog}. */
export interface ConfirmDialogProps {
  readonly open: boolean;
  readonly title: string;
  readonly children: ReactNode;
  readonly confirmLabel: string;
  readonly pending: boolean;
  readonly error: string | null;
  readonly onConfirm: () => void;
  readonly onClose: () => void;
}

/** A yes/no confirmation of a destructive action, with the server's error if it refused. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  return (
    <Dialog
      open={props.open}
      title={props.title}
      role="alertdialog"
      onClose={props.onClose}
      actions={
        <>
          <button type="button" className="button" onClick={props.onClose} autoFocus>
            Cancel
          </button>
          <button
            type="button"
            className="button button-danger"
            disabled={props.pending}
            onClick={props.onConfirm}
          >
            {props.pending ? "Working…" : props.confirmLabel}
          </button>
        </>
      }
    >
      {props.children}
      {props.error ? (
        <div className="notice tone-red" role="alert">
          {props.error}
        </div>
      ) : null}
    </Dialog>
  );
}
