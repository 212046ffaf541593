import type { ReactNode } from "react";

/** One number with its label and a note, optionally coloured by a tone. */
export function StatCard({
  label,
  value,
  note,
  tone,
  testId,
}: {
  readonly label: string;
  readonly value: ReactNode;
  readonly note?: ReactNode;
  readonly tone?: "green" | "amber" | "red";
  readonly testId?: string;
}) {
  return (
    <div className={`stat${tone ? ` tone-${tone}` : ""}`} data-testid={testId}>
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value}</div>
      {note ? <div className="stat-note">{note}</div> : null}
    </div>
  );
}
