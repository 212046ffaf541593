import type { DmmfEnum, DmmfField } from "./load-datamodel.js";

// Prisma's MySQL defaults for fields without a native type attribute.
const DEFAULT_TYPES: Record<string, string> = {
  String: "VARCHAR(191)",
  Int: "INTEGER",
  BigInt: "BIGINT",
  Boolean: "BOOLEAN",
  DateTime: "DATETIME(3)",
  Decimal: "DECIMAL(65, 30)",
  Float: "DOUBLE",
  Bytes: "LONGBLOB",
  Json: "JSON",
};

// `@db.X` attributes Warden uses, as Prisma's MySQL connector writes them in DDL.
const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  VarChar: ([n]) => `VARCHAR(${n})`,
  Char: ([n]) => `CHAR(${n})`,
  Text: () => "TEXT",
  TinyInt: () => "TINYINT",
  UnsignedTinyInt: () => "TINYINT UNSIGNED",
  SmallInt: () => "SMALLINT",
  UnsignedSmallInt: () => "SMALLINT UNSIGNED",
  Int: () => "INTEGER",
  UnsignedInt: () => "INTEGER UNSIGNED",
  BigInt: () => "BIGINT",
  UnsignedBigInt: () => "BIGINT UNSIGNED",
  DateTime: ([p]) => `DATETIME(${p ?? "0"})`,
  Timestamp: ([p]) => `TIMESTAMP(${p ?? "0"})`,
  Decimal: ([p, s]) => `DECIMAL(${p}, ${s})`,
  VarBinary: ([n]) => `VARBINARY(${n})`,
};

/**
 * The DDL type Prisma's MySQL connector gives a scalar or enum field. Throws for a type
 * this generator does not know yet, rather than guessing: add it here first.
 */
export function ddlType(field: DmmfField, enums: DmmfEnum[]): string {
  if (field.kind === "enum") {
    const values = enums.find((candidate) => candidate.name === field.type)?.values ?? [];
    return `ENUM(${values.map((value) => `'${value.dbName ?? value.name}'`).join(", ")})`;
  }
  if (field.nativeType) {
    const [name, args] = field.nativeType;
    const render = NATIVE_TYPES[name];
    if (!render) throw new Error(`native type @db.${name} on ${field.name} is not supported yet`);
    return render(args);
  }
  const type = DEFAULT_TYPES[field.type];
  if (!type) throw new Error(`field type ${field.type} of ${field.name} is not supported yet`);
  return type;
}

/**
 * The DDL default of a field, or null: `now()` → `CURRENT_TIMESTAMP(3)`, literals as SQL
 * literals. `autoincrement()` is not a default (it is AUTO_INCREMENT), and functions
 * such as `uuid()` run in Prisma Client, not in the database.
 */
export function ddlDefault(field: DmmfField, type: string): string | null {
  const value = field.default;
  if (value === undefined || value === null) return null;
  if (typeof value === "object") {
    const fn = (value as { name?: string }).name;
    if (fn === "now") return `CURRENT_TIMESTAMP(${/\((\d)\)/.exec(type)?.[1] ?? "3"})`;
    return null;
  }
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return `'${value.replace(/'/g, "''")}'`;
  throw new Error(`default of ${field.name} is not supported yet`);
}

/** A DDL default as MariaDB's information_schema reports it (`false` → `0`). */
export function reportedDefault(ddl: string | null): string | null {
  if (ddl === "true") return "1";
  if (ddl === "false") return "0";
  return ddl;
}
