import type {
  ColumnShape,
  ForeignKeyShape,
  IndexShape,
  SchemaShape,
  TableShape,
} from "./schema-shape.js";

/** One step that turns a database's schema into the declared one. */
export type SchemaChange =
  | { readonly kind: "create-table"; readonly table: TableShape }
  | { readonly kind: "drop-table"; readonly table: string }
  | { readonly kind: "set-collation"; readonly table: string; readonly collation: string }
  | { readonly kind: "add-column"; readonly table: string; readonly column: ColumnShape }
  | { readonly kind: "drop-column"; readonly table: string; readonly column: string }
  | {
      readonly kind: "alter-column";
      readonly table: string;
      readonly column: ColumnShape;
      readonly was: ColumnShape;
    }
  | { readonly kind: "set-primary-key"; readonly table: string; readonly columns: string[] }
  | { readonly kind: "create-index"; readonly table: string; readonly index: IndexShape }
  | { readonly kind: "drop-index"; readonly table: string; readonly index: string }
  | {
      readonly kind: "add-foreign-key";
      readonly table: string;
      readonly foreignKey: ForeignKeyShape;
    }
  | { readonly kind: "drop-foreign-key"; readonly table: string; readonly foreignKey: string };

/**
 * What it takes to get from `actual` to `expected`; empty when they match. Indexes and
 * foreign keys are matched by name, columns by name and then by every attribute.
 */
export function diffShapes(actual: SchemaShape, expected: SchemaShape): SchemaChange[] {
  const changes: SchemaChange[] = [];
  for (const table of expected.tables) {
    const current = actual.tables.find((candidate) => candidate.name === table.name);
    if (current) changes.push(...diffTable(current, table));
    else {
      changes.push({ kind: "create-table", table });
      for (const foreignKey of table.foreignKeys)
        changes.push({ kind: "add-foreign-key", table: table.name, foreignKey });
    }
  }
  for (const table of actual.tables) {
    if (expected.tables.some((candidate) => candidate.name === table.name)) continue;
    for (const fk of table.foreignKeys)
      changes.push({ kind: "drop-foreign-key", table: table.name, foreignKey: fk.name });
    changes.push({ kind: "drop-table", table: table.name });
  }
  return changes;
}

function diffTable(actual: TableShape, expected: TableShape): SchemaChange[] {
  const table = expected.name;
  const changes: SchemaChange[] = [];
  if (actual.collation !== expected.collation) {
    changes.push({ kind: "set-collation", table, collation: expected.collation });
  }
  for (const column of expected.columns) {
    const was = actual.columns.find((candidate) => candidate.name === column.name);
    if (!was) changes.push({ kind: "add-column", table, column });
    else if (!sameColumn(was, column)) changes.push({ kind: "alter-column", table, column, was });
  }
  for (const column of actual.columns) {
    if (!expected.columns.some((candidate) => candidate.name === column.name)) {
      changes.push({ kind: "drop-column", table, column: column.name });
    }
  }
  if (!sameList(actual.primaryKey, expected.primaryKey)) {
    changes.push({ kind: "set-primary-key", table, columns: expected.primaryKey });
  }
  changes.push(...diffNamed(actual.indexes, expected.indexes, sameIndex, table, "index"));
  changes.push(
    ...diffNamed(actual.foreignKeys, expected.foreignKeys, sameForeignKey, table, "foreign-key"),
  );
  return changes;
}

function diffNamed<T extends IndexShape | ForeignKeyShape>(
  actual: T[],
  expected: T[],
  same: (a: T, b: T) => boolean,
  table: string,
  what: "index" | "foreign-key",
): SchemaChange[] {
  const changes: SchemaChange[] = [];
  for (const item of actual) {
    const wanted = expected.find((candidate) => candidate.name === item.name);
    if (wanted && same(item, wanted)) continue;
    changes.push(
      what === "index"
        ? { kind: "drop-index", table, index: item.name }
        : { kind: "drop-foreign-key", table, foreignKey: item.name },
    );
  }
  for (const item of expected) {
    const present = actual.find((candidate) => candidate.name === item.name);
    if (present && same(present, item)) continue;
    changes.push(
      what === "index"
        ? { kind: "create-index", table, index: item as IndexShape }
        : { kind: "add-foreign-key", table, foreignKey: item as ForeignKeyShape },
    );
  }
  return changes;
}

function sameColumn(a: ColumnShape, b: ColumnShape): boolean {
  return (
    a.type === b.type &&
    a.nullable === b.nullable &&
    a.default === b.default &&
    a.autoIncrement === b.autoIncrement
  );
}

function sameIndex(a: IndexShape, b: IndexShape): boolean {
  return a.unique === b.unique && sameList(a.columns, b.columns);
}

function sameForeignKey(a: ForeignKeyShape, b: ForeignKeyShape): boolean {
  return (
    a.referencedTable === b.referencedTable &&
    sameList(a.columns, b.columns) &&
    sameList(a.referencedColumns, b.referencedColumns) &&
    a.onDelete === b.onDelete &&
    a.onUpdate === b.onUpdate
  );
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

/** One line per change, for drift reports and test failures. */
export function describeChange(change: SchemaChange): string {
  switch (change.kind) {
    case "create-table":
      return `table ${change.table.name} is missing`;
    case "drop-table":
      return `table ${change.table} is not in schema.prisma`;
    case "set-collation":
      return `table ${change.table} should have collation ${change.collation}`;
    case "add-column":
      return `column ${change.table}.${change.column.name} is missing`;
    case "drop-column":
      return `column ${change.table}.${change.column} is not in schema.prisma`;
    case "alter-column":
      return `column ${change.table}.${change.column.name} differs: ${JSON.stringify(change.was)} should be ${JSON.stringify({ ...change.column, ddlType: undefined })}`;
    case "set-primary-key":
      return `primary key of ${change.table} should be (${change.columns.join(", ")})`;
    case "create-index":
      return `index ${change.table}.${change.index.name} is missing or differs`;
    case "drop-index":
      return `index ${change.table}.${change.index} is not in schema.prisma or differs`;
    case "add-foreign-key":
      return `foreign key ${change.table}.${change.foreignKey.name} is missing or differs`;
    case "drop-foreign-key":
      return `foreign key ${change.table}.${change.foreignKey} is not in schema.prisma or differs`;
  }
}
