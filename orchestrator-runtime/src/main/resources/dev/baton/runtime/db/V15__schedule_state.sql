-- Where each schedule of a Workflow stands (docs/design.md#schedules). A runtime that looks at a schedule locks its row,
-- starts the instances of the fires that are due and moves last_fire in the same transaction: two runtimes looking at
-- once decide one after the other, and a crash before the commit leaves the fires to the next look. So each fire
-- starts at most one instance (its business key is <schedule>@<fire time> besides) and none is lost.
CREATE TABLE schedule_state (
  namespace          text        NOT NULL,
  workflow           text        NOT NULL,
  schedule           text        NOT NULL,
  last_fire          timestamptz NOT NULL,  -- the latest fire handled; at first the moment a runtime first saw it
  buffered_fire      timestamptz,           -- overlap BufferOne: the fire waiting for the running instance to end
  next_fire          timestamptz,
  last_instance_id   uuid,                  -- the instance the schedule started last (is it still running?)
  last_business_key  text,
  skipped            bigint      NOT NULL DEFAULT 0,
  missed             bigint      NOT NULL DEFAULT 0,
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace, workflow, schedule)
);
