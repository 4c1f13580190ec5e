\set aid random(1, 5)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
\sleep 2 ms
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
END;
