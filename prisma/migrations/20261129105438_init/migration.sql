-- CreateTable
CREATE TABLE `api_key` (
    `id` VARCHAR(32) NOT NULL,
    `tenant_id` VARCHAR(64) NOT NULL,
    `name` VARCHAR(200) NOT NULL,
    `prefix` VARCHAR(16) NOT NULL,
    `hash` CHAR(64) NOT NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `last_used_at` DATETIME(3) NULL,
    `revoked_at` DATETIME(3) NULL,
    UNIQUE INDEX `api_key_hash_key`(`hash`),
    INDEX `api_key_tenant_id_idx`(`tenant_id`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `client_instance` (
    `client_id` VARCHAR(128) NOT NULL,
    `tenant_id` VARCHAR(64) NOT NULL,
    `host` VARCHAR(255) NOT NULL,
    `pid` INTEGER UNSIGNED NOT NULL,
    `sdk_version` VARCHAR(32) NOT NULL,
    `tier` VARCHAR(8) NOT NULL,
    `started_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `last_seen_at` DATETIME(3) NOT NULL,
    `local_since` DATETIME(3) NULL,
    INDEX `client_instance_last_seen_at_idx`(`last_seen_at`),
    INDEX `client_instance_tenant_id_last_seen_at_idx`(`tenant_id`, `last_seen_at`),
    PRIMARY KEY (`client_id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `fence_epoch` (
    `id` TINYINT UNSIGNED NOT NULL,
    `epoch` BIGINT UNSIGNED NOT NULL,
    `reason` VARCHAR(200) NOT NULL,
    `minted_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `lock_event` (
    `id` VARCHAR(36) NOT NULL,
    `type` VARCHAR(32) NOT NULL,
    `tenant_id` VARCHAR(64) NULL,
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NULL,
    `lock_id` CHAR(22) NULL,
    `fence` BIGINT UNSIGNED NULL,
    `client_id` VARCHAR(128) NULL,
    `owner_id` VARCHAR(128) NULL,
    `tier` VARCHAR(8) NULL,
    `lease_ms` INTEGER UNSIGNED NULL,
    `actor` VARCHAR(128) NULL,
    `reason` VARCHAR(500) NULL,
    `at` DATETIME(3) NOT NULL,
    `recorded_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    INDEX `lock_event_at_idx`(`at`),
    INDEX `lock_event_business_key_at_idx`(`business_key`, `at`),
    INDEX `lock_event_client_id_owner_id_at_idx`(`client_id`, `owner_id`, `at`),
    INDEX `lock_event_fence_idx`(`fence`),
    INDEX `lock_event_lock_id_idx`(`lock_id`),
    INDEX `lock_event_resource_at_idx`(`resource`, `at`),
    INDEX `lock_event_tenant_id_at_idx`(`tenant_id`, `at`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `mysql_fence_base` (
    `epoch` BIGINT UNSIGNED NOT NULL,
    `base` BIGINT UNSIGNED NOT NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    PRIMARY KEY (`epoch`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `mysql_lock` (
    `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NOT NULL,
    `lock_id` CHAR(22) NOT NULL,
    `client_id` VARCHAR(128) NOT NULL,
    `owner_id` VARCHAR(128) NOT NULL,
    `fence` BIGINT UNSIGNED NOT NULL,
    `reentry` INTEGER UNSIGNED NOT NULL,
    `granted_at` DATETIME(3) NOT NULL,
    `expires_at` DATETIME(3) NOT NULL,
    INDEX `mysql_lock_expires_at_idx`(`expires_at`),
    UNIQUE INDEX `mysql_lock_resource_business_key_key`(`resource`, `business_key`),
    INDEX `mysql_lock_resource_id_idx`(`resource`, `id`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `operator` (
    `id` INTEGER UNSIGNED NOT NULL AUTO_INCREMENT,
    `username` VARCHAR(64) NOT NULL,
    `password_hash` VARCHAR(255) NOT NULL,
    `role` ENUM('viewer', 'operator', 'admin') NOT NULL DEFAULT 'viewer',
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `updated_at` DATETIME(3) NOT NULL,
    `last_login_at` DATETIME(3) NULL,
    `disabled_at` DATETIME(3) NULL,
    UNIQUE INDEX `operator_username_key`(`username`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `operator_session` (
    `id` CHAR(64) NOT NULL,
    `operator_id` INTEGER UNSIGNED NOT NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `last_seen_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `expires_at` DATETIME(3) NOT NULL,
    `revoked_at` DATETIME(3) NULL,
    `ip` VARCHAR(64) NULL,
    `user_agent` VARCHAR(300) NULL,
    INDEX `operator_session_expires_at_idx`(`expires_at`),
    INDEX `operator_session_operator_id_idx`(`operator_id`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `redis_lease_mirror` (
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NOT NULL,
    `lock_id` CHAR(22) NOT NULL,
    `fence` BIGINT UNSIGNED NOT NULL,
    `expires_at` DATETIME(3) NOT NULL,
    INDEX `redis_lease_mirror_expires_at_idx`(`expires_at`),
    PRIMARY KEY (`resource`, `business_key`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `resource` (
    `name` VARCHAR(128) NOT NULL,
    `tenant_id` VARCHAR(64) NOT NULL,
    `default_lease_ms` INTEGER UNSIGNED NOT NULL,
    `max_lease_ms` INTEGER UNSIGNED NOT NULL,
    `max_renewals` INTEGER UNSIGNED NULL,
    `expected_hold_ms` INTEGER UNSIGNED NULL,
    `degrade` BOOLEAN NOT NULL DEFAULT true,
    `local_fallback` ENUM('deny', 'allow') NOT NULL DEFAULT 'deny',
    `fair` BOOLEAN NOT NULL DEFAULT false,
    `wait_replicas` TINYINT UNSIGNED NOT NULL DEFAULT 0,
    `description` VARCHAR(1000) NOT NULL DEFAULT '',
    `retired_at` DATETIME(3) NULL,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `updated_at` DATETIME(3) NOT NULL,
    INDEX `resource_tenant_id_idx`(`tenant_id`),
    PRIMARY KEY (`name`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `tenant` (
    `id` VARCHAR(64) NOT NULL,
    `name` VARCHAR(200) NOT NULL,
    `requests_per_second` INTEGER UNSIGNED NOT NULL DEFAULT 1000,
    `created_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `updated_at` DATETIME(3) NOT NULL,
    `disabled_at` DATETIME(3) NULL,
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;

-- CreateTable
CREATE TABLE `tier_state` (
    `id` TINYINT UNSIGNED NOT NULL,
    `tier` VARCHAR(8) NOT NULL,
    `version` BIGINT UNSIGNED NOT NULL,
    `epoch` BIGINT UNSIGNED NOT NULL,
    `reason` VARCHAR(500) NOT NULL,
    `actor` VARCHAR(128) NOT NULL,
    `instance_id` VARCHAR(64) NOT NULL,
    `changed_at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    `forced` BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- CreateTable
CREATE TABLE `tier_transition` (
    `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    `from_tier` VARCHAR(8) NOT NULL,
    `to_tier` VARCHAR(8) NOT NULL,
    `epoch` BIGINT UNSIGNED NOT NULL,
    `reason` VARCHAR(500) NOT NULL,
    `actor` VARCHAR(128) NOT NULL,
    `instance_id` VARCHAR(64) NOT NULL,
    `at` DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    INDEX `tier_transition_at_idx`(`at`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

-- AddForeignKey
ALTER TABLE `api_key` ADD CONSTRAINT `api_key_tenant_id_fkey` FOREIGN KEY (`tenant_id`) REFERENCES `tenant`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `client_instance` ADD CONSTRAINT `client_instance_tenant_id_fkey` FOREIGN KEY (`tenant_id`) REFERENCES `tenant`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `operator_session` ADD CONSTRAINT `operator_session_operator_id_fkey` FOREIGN KEY (`operator_id`) REFERENCES `operator`(`id`) ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE `resource` ADD CONSTRAINT `resource_tenant_id_fkey` FOREIGN KEY (`tenant_id`) REFERENCES `tenant`(`id`) ON DELETE RESTRICT ON UPDATE CASCADE;
