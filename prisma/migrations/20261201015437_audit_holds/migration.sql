-- CreateTable
CREATE TABLE `lock_hold` (
    `id` VARCHAR(36) NOT NULL,
    `lock_id` CHAR(22) NOT NULL,
    `tenant_id` VARCHAR(64) NULL,
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NOT NULL,
    `fence` BIGINT UNSIGNED NULL,
    `client_id` VARCHAR(128) NULL,
    `owner_id` VARCHAR(128) NULL,
    `tier` VARCHAR(8) NULL,
    `lease_ms` INTEGER UNSIGNED NULL,
    `reentries` INTEGER UNSIGNED NOT NULL DEFAULT 1,
    `renewals` INTEGER UNSIGNED NOT NULL DEFAULT 0,
    `granted_at` DATETIME(3) NULL,
    `renewed_at` DATETIME(3) NULL,
    `renew_lease_ms` INTEGER UNSIGNED NULL,
    `expires_at` DATETIME(3) NULL,
    `ended_at` DATETIME(3) NULL,
    `end_type` VARCHAR(16) NULL,
    `actor` VARCHAR(128) NULL,
    `reason` VARCHAR(500) NULL,
    `recorded_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    INDEX `lock_hold_business_key_granted_at_idx`(`business_key`, `granted_at`),
    INDEX `lock_hold_client_id_owner_id_granted_at_idx`(`client_id`, `owner_id`, `granted_at`),
    INDEX `lock_hold_ended_at_expires_at_idx`(`ended_at`, `expires_at`),
    INDEX `lock_hold_fence_idx`(`fence`),
    INDEX `lock_hold_granted_at_idx`(`granted_at`),
    UNIQUE INDEX `lock_hold_lock_id_key`(`lock_id`),
    INDEX `lock_hold_resource_ended_at_idx`(`resource`, `ended_at`),
    INDEX `lock_hold_resource_granted_at_idx`(`resource`, `granted_at`),
    INDEX `lock_hold_tenant_id_granted_at_idx`(`tenant_id`, `granted_at`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- AlterTable
ALTER TABLE `lock_event` ADD COLUMN `count` INTEGER UNSIGNED NULL;
