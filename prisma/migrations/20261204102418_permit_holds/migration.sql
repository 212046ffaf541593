-- AlterTable
ALTER TABLE `lock_hold` ADD COLUMN `kind` VARCHAR(9) NULL;

-- AlterTable
ALTER TABLE `lock_hold` ADD COLUMN `permits` INTEGER UNSIGNED NULL;
