import { availableParallelism, cpus, release, totalmem, type as osType } from "node:os";
import { Redis } from "ioredis";
import { createConnection, type RowDataPacket } from "mysql2/promise";
import type { MachineInfo } from "../report/bench-report.js";

/** Describes this box and the store versions for the report. */
export async function machineInfo(redisUrl: string, mysqlUrl: string): Promise<MachineInfo> {
  const redis = new Redis(redisUrl, { lazyConnect: true });
  let redisVersion: string | null = null;
  try {
    await redis.connect();
    redisVersion = /^redis_version:(\S+)/m.exec(await redis.info("server"))?.[1] ?? null;
  } finally {
    redis.disconnect();
  }
  const mysql = await createConnection({ uri: mysqlUrl });
  let mariadb: string | null = null;
  try {
    const [rows] = await mysql.query<RowDataPacket[]>("SELECT VERSION() AS version");
    mariadb = (rows[0]?.version as string | undefined) ?? null;
  } finally {
    await mysql.end();
  }
  return {
    cpuModel: cpus()[0]?.model.trim() ?? "unknown CPU",
    cores: availableParallelism(),
    memoryGb: totalmem() / 1024 ** 3,
    os: `${osType()} ${release()}`,
    node: process.version,
    redis: redisVersion,
    mariadb,
  };
}
