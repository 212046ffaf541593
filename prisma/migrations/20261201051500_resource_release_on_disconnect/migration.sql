-- AlterTable
ALTER TABLE `resource` ADD COLUMN `release_on_disconnect_ms` INTEGER UNSIGNED NULL;
