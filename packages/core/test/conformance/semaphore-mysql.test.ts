import { migrate } from "@warden/db";
import { createTestDatabase } from "@warden/testkit";
import { createPool } from "mysql2/promise";
import { MysqlEpochSource } from "../../src/index.js";
import { MysqlSemaphoreStore } from "../../src/mysql/semaphore/mysql-semaphore-store.js";
import { describeSemaphoreConformance } from "./semaphore-conformance.js";

describeSemaphoreConformance("mysql", async () => {
  const db = await createTestDatabase();
  await migrate(db.url);
  const admin = createPool({ uri: db.url, connectionLimit: 2 });
  const store = await MysqlSemaphoreStore.open({
    connection: db.url,
    epochSource: new MysqlEpochSource(admin),
  });
  return {
    store,
    tier: "mysql",
    fenced: true,
    async close() {
      await store.close();
      await admin.end();
      await db.drop();
    },
  };
});
