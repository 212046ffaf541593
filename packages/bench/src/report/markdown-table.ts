/** Column alignment: left for names, right for numbers. */
export type Align = "left" | "right";

/**
 * A Markdown table whose columns are also padded to equal width, so it reads in a
 * terminal and pastes into a README unchanged.
 */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[],
): string {
  const widths = headers.map((header, column) =>
    Math.max(3, header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const cell = (text: string, column: number) => {
    const width = widths[column] ?? 3;
    return align[column] === "right" ? text.padStart(width) : text.padEnd(width);
  };
  const line = (cells: readonly string[]) =>
    `| ${headers.map((_, column) => cell(cells[column] ?? "", column)).join(" | ")} |`;
  const rule = `|${widths
    .map((width, column) =>
      align[column] === "right" ? `${"-".repeat(width + 1)}:` : `:${"-".repeat(width + 1)}`,
    )
    .join("|")}|`;
  return [line(headers), rule, ...rows.map(line)].join("\n");
}
