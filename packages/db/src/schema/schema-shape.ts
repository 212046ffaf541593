/**
 * A database schema reduced to what Prisma's MySQL migrations control, in one canonical
 * spelling, so the schema Prisma declares and the one a database has can be compared
 * with `===`. Produced from schema.prisma by `shapeFromDatamodel` and from a live
 * database by `shapeFromDatabase`.
 */
export interface SchemaShape {
  /** Sorted by name. */
  readonly tables: TableShape[];
}

/** One table. */
export interface TableShape {
  readonly name: string;
  /** Table collation, e.g. `utf8mb4_unicode_ci` (Prisma's) or `utf8mb4_bin`. */
  readonly collation: string;
  /** In declaration order; compared by name, since Prisma does not control the order. */
  readonly columns: ColumnShape[];
  /** Column names in key order; empty when the table has no primary key. */
  readonly primaryKey: string[];
  /** Secondary indexes, sorted by name. */
  readonly indexes: IndexShape[];
  /** Sorted by name. */
  readonly foreignKeys: ForeignKeyShape[];
}

/** One column. */
export interface ColumnShape {
  readonly name: string;
  /** Canonical type, see {@link canonicalType}: `bigint unsigned`, `varchar(128)`, ... */
  readonly type: string;
  /** How Prisma writes the type in DDL (`BIGINT UNSIGNED`); only set from the datamodel. */
  readonly ddlType?: string;
  readonly nullable: boolean;
  /** Canonical default, see {@link canonicalDefault}; null when there is none. */
  readonly default: string | null;
  readonly autoIncrement: boolean;
}

/** One secondary index (unique or not). */
export interface IndexShape {
  readonly name: string;
  readonly unique: boolean;
  readonly columns: string[];
}

/** One foreign key. Actions are SQL words: `RESTRICT`, `CASCADE`, `SET NULL`, `NO ACTION`. */
export interface ForeignKeyShape {
  readonly name: string;
  readonly columns: string[];
  readonly referencedTable: string;
  readonly referencedColumns: string[];
  readonly onDelete: string;
  readonly onUpdate: string;
}

const INTEGER_WIDTH = /^(tinyint|smallint|mediumint|int|bigint)\(\d+\)/;

/**
 * One spelling per column type: lower case, `integer` → `int`, `boolean` → `tinyint(1)`,
 * integer display widths dropped (MariaDB shows `bigint(20) unsigned`), no blanks
 * inside `enum(...)` lists.
 */
export function canonicalType(type: string): string {
  let value = type.trim().toLowerCase().replace(/\s+/g, " ");
  if (value === "boolean" || value === "bool") return "tinyint(1)";
  value = value.replace(/^integer\b/, "int");
  if (value.startsWith("tinyint(1)") && !value.includes("unsigned")) return "tinyint(1)";
  value = value.replace(INTEGER_WIDTH, "$1");
  return value.replace(/,\s+'/g, ",'").replace(/\(\s*(\d+)\s*,\s*(\d+)\s*\)/, "($1,$2)");
}

/**
 * One spelling per default: null for none (MariaDB reports a nullable column without a
 * default as the text `NULL`), functions in lower case, literals as MariaDB shows them.
 */
export function canonicalDefault(value: string | null): string | null {
  if (value === null || value === "NULL") return null;
  if (/^current_timestamp/i.test(value)) return value.toLowerCase().replace("()", "");
  return value;
}

/** Sorts a list by `name`, for stable comparisons and output. */
export function byName<T extends { readonly name: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
