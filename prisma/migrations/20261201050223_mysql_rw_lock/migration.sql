-- CreateTable
CREATE TABLE `mysql_rw_grant` (
    `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NOT NULL,
    `lock_id` CHAR(22) NOT NULL,
    `mode` VARCHAR(5) NOT NULL,
    `client_id` VARCHAR(128) NOT NULL,
    `owner_id` VARCHAR(128) NOT NULL,
    `fence` BIGINT UNSIGNED NOT NULL,
    `reentry` INTEGER UNSIGNED NOT NULL,
    `renewals` INTEGER UNSIGNED NOT NULL DEFAULT 0,
    `granted_at` DATETIME(3) NOT NULL,
    `expires_at` DATETIME(3) NOT NULL,
    UNIQUE INDEX `mysql_rw_grant_lock_id_key`(`lock_id`),
    INDEX `mysql_rw_grant_resource_business_key_idx`(`resource`, `business_key`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;

-- CreateTable
CREATE TABLE `mysql_rw_intent` (
    `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NOT NULL,
    `client_id` VARCHAR(128) NOT NULL,
    `owner_id` VARCHAR(128) NOT NULL,
    `deadline` DATETIME(3) NOT NULL,
    UNIQUE INDEX `mysql_rw_intent_resource_business_key_client_id_owner_id_key`(`resource`, `business_key`, `client_id`, `owner_id`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;

-- CreateTable
CREATE TABLE `mysql_rw_lock` (
    `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NOT NULL,
    `read_fence` BIGINT UNSIGNED NULL,
    `last_fence` BIGINT UNSIGNED NOT NULL,
    UNIQUE INDEX `mysql_rw_lock_resource_business_key_key`(`resource`, `business_key`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
