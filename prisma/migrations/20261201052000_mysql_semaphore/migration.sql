-- CreateTable
CREATE TABLE `mysql_semaphore` (
    `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NOT NULL,
    `last_fence` BIGINT UNSIGNED NOT NULL,
    `total_permits` INTEGER UNSIGNED NOT NULL,
    UNIQUE INDEX `mysql_semaphore_resource_business_key_key`(`resource`, `business_key`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;

-- CreateTable
CREATE TABLE `mysql_semaphore_permit` (
    `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NOT NULL,
    `lock_id` CHAR(22) NOT NULL,
    `client_id` VARCHAR(128) NOT NULL,
    `owner_id` VARCHAR(128) NOT NULL,
    `permits` INTEGER UNSIGNED NOT NULL,
    `fence` BIGINT UNSIGNED NOT NULL,
    `granted_at` DATETIME(3) NOT NULL,
    `renewals` INTEGER UNSIGNED NOT NULL DEFAULT 0,
    `expires_at` DATETIME(3) NOT NULL,
    INDEX `mysql_semaphore_permit_expires_at_idx`(`expires_at`),
    UNIQUE INDEX `mysql_semaphore_permit_lock_id_key`(`lock_id`),
    INDEX `mysql_semaphore_permit_resource_business_key_expires_at_idx`(`resource`, `business_key`, `expires_at`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
