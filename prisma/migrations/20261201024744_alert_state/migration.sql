-- CreateTable
CREATE TABLE `alert_delivery` (
    `webhook` VARCHAR(64) NOT NULL,
    `format` VARCHAR(16) NOT NULL,
    `last_outcome` VARCHAR(16) NOT NULL,
    `last_error` VARCHAR(500) NULL,
    `last_attempt_at` DATETIME(3) NOT NULL,
    `last_success_at` DATETIME(3) NULL,
    `failures` INTEGER UNSIGNED NOT NULL DEFAULT 0,
    `delivered` INTEGER UNSIGNED NOT NULL DEFAULT 0,
    PRIMARY KEY (`webhook`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `alert_state` (
    `id` VARCHAR(191) NOT NULL,
    `kind` VARCHAR(32) NOT NULL,
    `severity` VARCHAR(16) NOT NULL,
    `tenant_id` VARCHAR(64) NULL,
    `resource` VARCHAR(128) NULL,
    `labels` VARCHAR(2000) NOT NULL,
    `summary` VARCHAR(300) NOT NULL,
    `detail` VARCHAR(1000) NOT NULL,
    `href` VARCHAR(500) NOT NULL,
    `status` VARCHAR(8) NOT NULL,
    `starts_at` DATETIME(3) NOT NULL,
    `ends_at` DATETIME(3) NULL,
    `updated_at` DATETIME(3) NOT NULL,
    `notified_status` VARCHAR(8) NULL,
    `notified_at` DATETIME(3) NULL,
    INDEX `alert_state_status_updated_at_idx`(`status`, `updated_at`),
    INDEX `alert_state_tenant_id_status_idx`(`tenant_id`, `status`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
