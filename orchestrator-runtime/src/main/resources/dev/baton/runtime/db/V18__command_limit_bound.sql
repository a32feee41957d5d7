-- An upper bound of the slots a limited command holds (docs/design.md#concurrency-limits): each claim adds what
-- it takes; slots given back lower only the real count. While the bound leaves room, a claim needs no count of
-- the slots (which grows with the commands in flight); once it does not, the slots are counted and the bound reset.
ALTER TABLE command_limit ADD COLUMN slots_bound bigint NOT NULL DEFAULT 0;
UPDATE command_limit l SET slots_bound = (SELECT count(*) FROM command_slot f
  WHERE f.exchange = l.exchange AND f.routing_key = l.routing_key);
