import type { SchemaChange } from "./diff-shapes.js";
import type { ColumnShape, ForeignKeyShape, TableShape } from "./schema-shape.js";

// Prisma's order: constraints that could block a drop go first, foreign keys to tables
// that may only now exist go last.
const PHASES: SchemaChange["kind"][] = [
  "drop-foreign-key",
  "drop-index",
  "drop-table",
  "create-table",
  "set-collation",
  "drop-column",
  "add-column",
  "alter-column",
  "set-primary-key",
  "create-index",
  "add-foreign-key",
];

const quote = (name: string) => `\`${name}\``;
const quoteAll = (names: string[]) => names.map(quote).join(", ");

/** Renders changes as a MySQL migration script in the layout `prisma migrate dev` writes. */
export function renderChanges(changes: SchemaChange[]): string {
  const ordered = [...changes].sort((a, b) => PHASES.indexOf(a.kind) - PHASES.indexOf(b.kind));
  return ordered.map(renderChange).join("\n\n") + "\n";
}

function renderChange(change: SchemaChange): string {
  switch (change.kind) {
    case "drop-foreign-key":
      return `-- DropForeignKey\nALTER TABLE ${quote(change.table)} DROP FOREIGN KEY ${quote(change.foreignKey)};`;
    case "drop-index":
      return `-- DropIndex\nDROP INDEX ${quote(change.index)} ON ${quote(change.table)};`;
    case "drop-table":
      return `-- DropTable\nDROP TABLE ${quote(change.table)};`;
    case "create-table":
      return `-- CreateTable\n${createTable(change.table)}`;
    case "set-collation":
      return `-- AlterTable\nALTER TABLE ${quote(change.table)} CONVERT TO CHARACTER SET utf8mb4 COLLATE ${change.collation};`;
    case "drop-column":
      return `-- AlterTable\nALTER TABLE ${quote(change.table)} DROP COLUMN ${quote(change.column)};`;
    case "add-column":
      return `-- AlterTable\nALTER TABLE ${quote(change.table)} ADD COLUMN ${columnDdl(change.column)};`;
    case "alter-column":
      return `-- AlterTable\nALTER TABLE ${quote(change.table)} MODIFY ${columnDdl(change.column)};`;
    case "set-primary-key":
      return `-- AlterTable\nALTER TABLE ${quote(change.table)} DROP PRIMARY KEY,\n    ADD PRIMARY KEY (${quoteAll(change.columns)});`;
    case "create-index": {
      const unique = change.index.unique ? "UNIQUE " : "";
      return `-- CreateIndex\nCREATE ${unique}INDEX ${quote(change.index.name)} ON ${quote(change.table)}(${quoteAll(change.index.columns)});`;
    }
    case "add-foreign-key":
      return `-- AddForeignKey\n${addForeignKey(change.table, change.foreignKey)}`;
  }
}

function createTable(table: TableShape): string {
  const lines = table.columns.map(columnDdl);
  for (const index of table.indexes) {
    lines.push(
      `${index.unique ? "UNIQUE " : ""}INDEX ${quote(index.name)}(${quoteAll(index.columns)})`,
    );
  }
  if (table.primaryKey.length > 0) lines.push(`PRIMARY KEY (${quoteAll(table.primaryKey)})`);
  const body = lines.map((line) => `    ${line}`).join(",\n");
  return `CREATE TABLE ${quote(table.name)} (\n${body}\n) DEFAULT CHARACTER SET utf8mb4 COLLATE ${table.collation};`;
}

function columnDdl(column: ColumnShape): string {
  const parts = [quote(column.name), column.ddlType ?? column.type.toUpperCase()];
  parts.push(column.nullable ? "NULL" : "NOT NULL");
  const dflt = defaultDdl(column);
  if (dflt !== null) parts.push(`DEFAULT ${dflt}`);
  if (column.autoIncrement) parts.push("AUTO_INCREMENT");
  return parts.join(" ");
}

// Canonical defaults are what MariaDB reports; Prisma writes booleans and functions
// its own way.
function defaultDdl(column: ColumnShape): string | null {
  if (column.default === null) return null;
  if (column.ddlType === "BOOLEAN") return column.default === "1" ? "true" : "false";
  if (column.default.startsWith("current_timestamp")) return column.default.toUpperCase();
  return column.default;
}

function addForeignKey(table: string, fk: ForeignKeyShape): string {
  return (
    `ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(fk.name)} FOREIGN KEY (${quoteAll(fk.columns)}) ` +
    `REFERENCES ${quote(fk.referencedTable)}(${quoteAll(fk.referencedColumns)}) ` +
    `ON DELETE ${fk.onDelete} ON UPDATE ${fk.onUpdate};`
  );
}
