-- CreateTable
CREATE TABLE `alert_evaluator_fence` (
    `id` TINYINT UNSIGNED NOT NULL,
    `fence` BIGINT UNSIGNED NOT NULL,
    `holder` VARCHAR(128) NOT NULL,
    `updated_at` DATETIME(3) NOT NULL,
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
