-- CreateIndex
CREATE INDEX `mysql_rw_grant_expires_at_idx` ON `mysql_rw_grant`(`expires_at`);

-- CreateIndex
CREATE INDEX `mysql_rw_intent_deadline_idx` ON `mysql_rw_intent`(`deadline`);
