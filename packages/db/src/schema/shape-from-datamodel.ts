import { ddlDefault, ddlType, reportedDefault } from "./column-type.js";
import type { Datamodel, DmmfField, DmmfModel } from "./load-datamodel.js";
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

/** Prisma's table collation for MySQL. */
export const PRISMA_COLLATION = "utf8mb4_unicode_ci";

/** Model documentation marker that makes a table compare strings byte for byte. */
const COLLATE_MARKER = /^warden:collate (\w+)$/m;

// MySQL identifiers are at most 64 characters; Prisma shortens default constraint names
// by cutting the `<table>_<columns>` part before the suffix.
function constraintName(table: string, columns: string[], suffix: string): string {
  return `${`${table}_${columns.join("_")}`.slice(0, 63 - suffix.length)}_${suffix}`;
}

const ACTIONS: Record<string, string> = {
  Cascade: "CASCADE",
  Restrict: "RESTRICT",
  NoAction: "NO ACTION",
  SetNull: "SET NULL",
  SetDefault: "SET DEFAULT",
};

/** The tables schema.prisma declares, named and typed as Prisma's migrations create them. */
export function shapeFromDatamodel(datamodel: Datamodel): SchemaShape {
  const tableOf = (modelName: string) => {
    const model = datamodel.models.find((candidate) => candidate.name === modelName);
    if (!model) throw new Error(`unknown model ${modelName}`);
    return model;
  };
  return {
    tables: byName(datamodel.models.map((model) => tableFromModel(model, datamodel, tableOf))),
  };
}

function tableFromModel(
  model: DmmfModel,
  datamodel: Datamodel,
  tableOf: (name: string) => DmmfModel,
): TableShape {
  const table = model.dbName ?? model.name;
  const columnOf = (fieldName: string, owner: DmmfModel = model) => {
    const field = owner.fields.find((candidate) => candidate.name === fieldName);
    return field?.dbName ?? fieldName;
  };
  const scalars = model.fields.filter((field) => field.kind === "scalar" || field.kind === "enum");
  const indexes: IndexShape[] = datamodel.indexes
    .filter(
      (index) => index.model === model.name && (index.type === "unique" || index.type === "normal"),
    )
    .map((index) => {
      const columns = index.fields.map((field) => columnOf(field.name));
      const suffix = index.type === "unique" ? "key" : "idx";
      return {
        name: index.dbName ?? constraintName(table, columns, suffix),
        unique: index.type === "unique",
        columns,
      };
    });
  const foreignKeys: ForeignKeyShape[] = model.fields
    .filter((field) => field.kind === "object" && (field.relationFromFields?.length ?? 0) > 0)
    .map((field) => {
      const target = tableOf(field.type);
      const columns = (field.relationFromFields ?? []).map((name) => columnOf(name));
      return {
        name: constraintName(table, columns, "fkey"),
        columns,
        referencedTable: target.dbName ?? target.name,
        referencedColumns: (field.relationToFields ?? []).map((name) => columnOf(name, target)),
        onDelete:
          ACTIONS[field.relationOnDelete ?? (field.isRequired ? "Restrict" : "SetNull")] ??
          "RESTRICT",
        onUpdate: ACTIONS[field.relationOnUpdate ?? "Cascade"] ?? "CASCADE",
      };
    });
  const idFields =
    model.primaryKey?.fields ??
    model.fields.filter((field) => field.isId).map((field) => field.name);
  return {
    name: table,
    collation: COLLATE_MARKER.exec(model.documentation ?? "")?.[1] ?? PRISMA_COLLATION,
    columns: scalars.map((field) => columnFromField(field, columnOf(field.name), datamodel)),
    primaryKey: idFields.map((name) => columnOf(name)),
    indexes: byName(indexes),
    foreignKeys: byName(foreignKeys),
  };
}

function columnFromField(field: DmmfField, name: string, datamodel: Datamodel): ColumnShape {
  const type = ddlType(field, datamodel.enums);
  const autoIncrement = (field.default as { name?: string } | undefined)?.name === "autoincrement";
  return {
    name,
    type: canonicalType(type),
    ddlType: type,
    nullable: !field.isRequired,
    default: canonicalDefault(reportedDefault(ddlDefault(field, type))),
    autoIncrement,
  };
}
