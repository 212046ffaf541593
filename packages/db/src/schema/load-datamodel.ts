import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { SCHEMA_FILE } from "../paths.js";

/** The parts of Prisma's DMMF datamodel that decide tables (see `@prisma/dmmf`). */
export interface Datamodel {
  readonly models: DmmfModel[];
  readonly enums: DmmfEnum[];
  readonly indexes: DmmfIndex[];
}

/** A model as the DMMF describes it. */
export interface DmmfModel {
  readonly name: string;
  readonly dbName: string | null;
  readonly fields: DmmfField[];
  readonly primaryKey: { readonly fields: string[] } | null;
  readonly documentation?: string;
}

/** A field as the DMMF describes it. */
export interface DmmfField {
  readonly name: string;
  readonly dbName?: string | null;
  readonly kind: "scalar" | "object" | "enum" | "unsupported";
  readonly type: string;
  readonly isRequired: boolean;
  readonly isList: boolean;
  readonly isId: boolean;
  readonly nativeType?: [string, string[]] | null;
  readonly default?: unknown;
  readonly relationFromFields?: string[];
  readonly relationToFields?: string[];
  readonly relationOnDelete?: string;
  readonly relationOnUpdate?: string;
}

/** An enum as the DMMF describes it. */
export interface DmmfEnum {
  readonly name: string;
  readonly values: { readonly name: string; readonly dbName: string | null }[];
}

/** An index, unique constraint or primary key as the DMMF describes it. */
export interface DmmfIndex {
  readonly model: string;
  readonly type: "id" | "unique" | "normal" | "fulltext";
  readonly dbName?: string | null;
  readonly fields: { readonly name: string }[];
}

interface PrismaSchemaWasm {
  get_dmmf(params: string): string;
}

/**
 * Parses a Prisma schema with Prisma's own parser (`@prisma/prisma-schema-wasm`, the one
 * `prisma generate` uses; it runs offline) and returns its datamodel.
 * @param schemaFile path of the schema; defaults to the repository's schema.prisma
 */
export async function loadDatamodel(schemaFile: string = SCHEMA_FILE): Promise<Datamodel> {
  const schema = await readFile(schemaFile, "utf8");
  // The package is CommonJS built for Node by wasm-bindgen; require() keeps its
  // synchronous WebAssembly start-up intact.
  const wasm = createRequire(import.meta.url)("@prisma/prisma-schema-wasm") as PrismaSchemaWasm;
  const dmmf = JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema: schema }))) as {
    datamodel: Datamodel;
  };
  return dmmf.datamodel;
}
