-- DropIndex
DROP INDEX `lock_hold_resource_ended_at_idx` ON `lock_hold`;
