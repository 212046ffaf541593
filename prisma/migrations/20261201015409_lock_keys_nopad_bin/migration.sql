-- AlterTable
ALTER TABLE `mysql_lock` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;

-- AlterTable
ALTER TABLE `redis_lease_mirror` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
