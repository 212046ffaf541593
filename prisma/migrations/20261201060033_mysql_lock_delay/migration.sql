-- AlterTable
ALTER TABLE `mysql_lock` ADD COLUMN `lock_delay_ms` INTEGER UNSIGNED NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE `resource` ADD COLUMN `lock_delay_ms` INTEGER UNSIGNED NOT NULL DEFAULT 0;
