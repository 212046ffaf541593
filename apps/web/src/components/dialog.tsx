"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";

/** Props of {@link Dialog}. */
export interface DialogProps {
  readonly open: boolean;
  readonly title: string;
  /** Escape, the close button, or a click on Cancel. */
  readonly onClose: () => void;
  readonly children: ReactNode;
  /** Buttons at the bottom, primary last. */
  readonly actions: ReactNode;
  readonly role?: "dialog" | "alertdialog";
}

/**
 * A modal on the native `<dialog>`: `showModal()` makes the page behind it inert (focus
 * stays inside), Escape closes it, and the browser returns focus to the opener.
 */
export function Dialog({ open, title, onClose, children, actions, role = "dialog" }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      role={role}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open ? (
        <>
          <div className="dialog-body">
            <h2 id={titleId}>{title}</h2>
            {children}
          </div>
          <div className="dialog-actions">{actions}</div>
        </>
      ) : null}
    </dialog>
  );
}
