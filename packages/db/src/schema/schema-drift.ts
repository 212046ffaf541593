import { createConnection } from "mysql2/promise";
import { diffShapes, type SchemaChange } from "./diff-shapes.js";
import { loadDatamodel } from "./load-datamodel.js";
import { shapeFromDatabase } from "./shape-from-database.js";
import { shapeFromDatamodel } from "./shape-from-datamodel.js";

/**
 * How `url`'s database differs from schema.prisma: the changes a new migration would
 * need. Empty when the database matches. The declared side comes from Prisma's own
 * schema parser, the actual side from information_schema.
 * @param schemaFile path of the schema; defaults to the repository's schema.prisma
 */
export async function schemaDrift(url: string, schemaFile?: string): Promise<SchemaChange[]> {
  const expected = shapeFromDatamodel(await loadDatamodel(schemaFile));
  const connection = await createConnection({ uri: url });
  try {
    return diffShapes(await shapeFromDatabase(connection), expected);
  } finally {
    await connection.end();
  }
}
