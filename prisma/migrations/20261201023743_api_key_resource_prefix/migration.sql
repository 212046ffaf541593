-- AlterTable
ALTER TABLE `api_key` ADD COLUMN `resource_prefix` VARCHAR(128) NOT NULL DEFAULT '';
