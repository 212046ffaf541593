-- CreateTable
CREATE TABLE `mysql_lock_waiter` (
    `id` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    `resource` VARCHAR(128) NOT NULL,
    `business_key` VARCHAR(200) NOT NULL,
    `waiter_id` VARCHAR(64) NOT NULL,
    `deadline` DATETIME(3) NOT NULL,
    INDEX `mysql_lock_waiter_deadline_idx`(`deadline`),
    INDEX `mysql_lock_waiter_resource_business_key_id_idx`(`resource`, `business_key`, `id`),
    UNIQUE INDEX `mysql_lock_waiter_resource_business_key_waiter_id_key`(`resource`, `business_key`, `waiter_id`),
    PRIMARY KEY (`id`)
) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;
