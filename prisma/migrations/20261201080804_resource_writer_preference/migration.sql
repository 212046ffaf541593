-- AlterTable
ALTER TABLE `resource` ADD COLUMN `writer_preference` BOOLEAN NOT NULL DEFAULT true;
