-- AlterTable
ALTER TABLE `resource` ADD COLUMN `kind` VARCHAR(16) NOT NULL DEFAULT 'mutex';

-- AlterTable
ALTER TABLE `resource` ADD COLUMN `permits` INTEGER UNSIGNED NULL;
