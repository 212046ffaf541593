-- AlterTable
ALTER TABLE `operator` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;

-- AlterTable
ALTER TABLE `api_key` ADD COLUMN `scopes` VARCHAR(64) NOT NULL DEFAULT 'lock';

-- AlterTable
ALTER TABLE `client_instance` DROP PRIMARY KEY,
    ADD PRIMARY KEY (`tenant_id`, `client_id`);
