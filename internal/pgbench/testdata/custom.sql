\set aid random_zipfian(1, 100000 * :scale, 1.1)
SELECT abalance AS bal FROM pgbench_accounts WHERE aid = :aid \gset
\if :bal > 0
UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = :aid;
\else
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
\endif
