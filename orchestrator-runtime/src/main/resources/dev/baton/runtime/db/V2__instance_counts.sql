-- Instance counts per (namespace, workflow, status) without counting every instance: the metrics gauge and
-- /api/v1/counts used to GROUP BY the whole workflow_instance table every refresh (about 0.1 s per million rows,
-- growing with the retention). Now:
-- * instance_count holds the totals;
-- * instance_count_change is an append-only log of changes, written by triggers in the transaction that makes the
--   change (inserts only, no index: nothing waits for anything, so the step loop's transactions never contend);
-- * the runtime's periodic count folds the log into the totals (InstanceStore.countByStatus).
CREATE TABLE instance_count (
  namespace  text    NOT NULL,
  workflow   text    NOT NULL,
  status     text    NOT NULL,
  n          bigint  NOT NULL,
  PRIMARY KEY (namespace, workflow, status)
);

CREATE TABLE instance_count_change (
  namespace  text    NOT NULL,
  workflow   text    NOT NULL,
  status     text    NOT NULL,
  delta      bigint  NOT NULL
);

INSERT INTO instance_count (namespace, workflow, status, n)
  SELECT namespace, workflow, status, count(*) FROM workflow_instance GROUP BY namespace, workflow, status;

-- New and deleted instances (starts, bulk loads, the retention purge): once per statement, grouped.
CREATE FUNCTION baton_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO instance_count_change (namespace, workflow, status, delta)
    SELECT namespace, workflow, status, count(*) FROM inserted GROUP BY namespace, workflow, status;
  RETURN NULL;
END $$;

CREATE FUNCTION baton_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO instance_count_change (namespace, workflow, status, delta)
    SELECT namespace, workflow, status, -count(*) FROM deleted GROUP BY namespace, workflow, status;
  RETURN NULL;
END $$;

-- A status change (rare: an instance's end, compensation, cancel, retry); the WHEN clause keeps every other update
-- of the step loop free of any trigger call.
CREATE FUNCTION baton_count_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO instance_count_change (namespace, workflow, status, delta)
    VALUES (OLD.namespace, OLD.workflow, OLD.status, -1), (NEW.namespace, NEW.workflow, NEW.status, 1);
  RETURN NULL;
END $$;

CREATE TRIGGER workflow_instance_count_inserted AFTER INSERT ON workflow_instance
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION baton_count_inserted();
CREATE TRIGGER workflow_instance_count_deleted AFTER DELETE ON workflow_instance
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION baton_count_deleted();
CREATE TRIGGER workflow_instance_count_status AFTER UPDATE OF status ON workflow_instance
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION baton_count_status_changed();
