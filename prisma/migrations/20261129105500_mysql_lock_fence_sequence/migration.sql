-- Hand-written (Prisma does not model sequences, and its schema describer reads base
-- tables only, so this causes no drift). The MySQL tier's fence counter: every grant
-- takes NEXTVAL inside its one INSERT ... ON DUPLICATE KEY UPDATE, and its counter is
-- that value minus the epoch's base in mysql_fence_base (docs/decisions/0003). A
-- sequence never goes backwards, not even after a crash: MariaDB persists the end of
-- the cached range before handing out values from it.
CREATE SEQUENCE `mysql_lock_fence_seq` START WITH 1 MINVALUE 1 INCREMENT BY 1 CACHE 1000 NOCYCLE;
