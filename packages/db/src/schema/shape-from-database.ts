import type { Connection, RowDataPacket } from "mysql2/promise";
import {
  byName,
  canonicalDefault,
  canonicalType,
  type ColumnShape,
  type ForeignKeyShape,
  type IndexShape,
  type SchemaShape,
  type TableShape,
} from "./schema-shape.js";

/** Tables that belong to the tooling, not to schema.prisma. */
const IGNORED_TABLES = new Set(["_prisma_migrations"]);

/**
 * Reads the current database's tables from information_schema, the way Prisma's MySQL
 * schema describer sees them: base tables only (so sequences and views are not tables),
 * and no index InnoDB made by itself to back a foreign key.
 */
export async function shapeFromDatabase(connection: Connection): Promise<SchemaShape> {
  const tables = await rowsOf(
    connection,
    `SELECT table_name AS name, table_collation AS collation FROM information_schema.tables
      WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'`,
  );
  const columns = await rowsOf(
    connection,
    `SELECT table_name AS tableName, column_name AS name, column_type AS type,
            is_nullable AS nullable, column_default AS dflt, extra
       FROM information_schema.columns WHERE table_schema = DATABASE()
      ORDER BY table_name, ordinal_position`,
  );
  const keyParts = await rowsOf(
    connection,
    `SELECT table_name AS tableName, index_name AS name, non_unique AS nonUnique, column_name AS col
       FROM information_schema.statistics WHERE table_schema = DATABASE()
      ORDER BY table_name, index_name, seq_in_index`,
  );
  const fkParts = await rowsOf(
    connection,
    `SELECT k.table_name AS tableName, k.constraint_name AS name, k.column_name AS col,
            k.referenced_table_name AS refTable, k.referenced_column_name AS refCol,
            r.delete_rule AS onDelete, r.update_rule AS onUpdate
       FROM information_schema.key_column_usage k
       JOIN information_schema.referential_constraints r
         ON r.constraint_schema = k.constraint_schema AND r.constraint_name = k.constraint_name
      WHERE k.table_schema = DATABASE() AND k.referenced_table_name IS NOT NULL
      ORDER BY k.table_name, k.constraint_name, k.ordinal_position`,
  );
  const shapes = tables
    .filter((table) => !IGNORED_TABLES.has(String(table.name)))
    .map((table) => {
      const name = String(table.name);
      const mine = (row: RowDataPacket) => row.tableName === name;
      return tableShape(
        name,
        String(table.collation),
        columns.filter(mine),
        keyParts.filter(mine),
        fkParts.filter(mine),
      );
    });
  return { tables: byName(shapes) };
}

async function rowsOf(connection: Connection, sql: string): Promise<RowDataPacket[]> {
  const [rows] = await connection.query<RowDataPacket[]>(sql);
  return rows;
}

function tableShape(
  name: string,
  collation: string,
  columnRows: RowDataPacket[],
  keyRows: RowDataPacket[],
  fkRows: RowDataPacket[],
): TableShape {
  const columns: ColumnShape[] = columnRows.map((row) => ({
    name: String(row.name),
    type: canonicalType(String(row.type)),
    nullable: row.nullable === "YES",
    default: canonicalDefault(row.dflt === null ? null : String(row.dflt)),
    autoIncrement: String(row.extra).toLowerCase().includes("auto_increment"),
  }));
  const foreignKeys = groupBy(fkRows).map(
    ([fkName, rows]): ForeignKeyShape => ({
      name: fkName,
      columns: rows.map((row) => String(row.col)),
      referencedTable: String(rows[0]?.refTable),
      referencedColumns: rows.map((row) => String(row.refCol)),
      onDelete: String(rows[0]?.onDelete),
      onUpdate: String(rows[0]?.onUpdate),
    }),
  );
  const fkNames = new Set(foreignKeys.map((fk) => fk.name));
  const keys = groupBy(keyRows);
  const primaryKey =
    keys.find(([keyName]) => keyName === "PRIMARY")?.[1].map((row) => String(row.col)) ?? [];
  const indexes = keys
    .filter(([keyName]) => keyName !== "PRIMARY" && !fkNames.has(keyName))
    .map(
      ([keyName, rows]): IndexShape => ({
        name: keyName,
        unique: Number(rows[0]?.nonUnique) === 0,
        columns: rows.map((row) => String(row.col)),
      }),
    );
  return {
    name,
    collation,
    columns,
    primaryKey,
    indexes: byName(indexes),
    foreignKeys: byName(foreignKeys),
  };
}

// Rows arrive ordered by name then position; keeps that order inside each group.
function groupBy(rows: RowDataPacket[]): [string, RowDataPacket[]][] {
  const groups = new Map<string, RowDataPacket[]>();
  for (const row of rows) {
    const key = String(row.name);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.entries()];
}
