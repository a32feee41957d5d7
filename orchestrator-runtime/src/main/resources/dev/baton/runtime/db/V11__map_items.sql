-- A map step's list (docs/design.md#workflow-language, map): its items expression is evaluated once, when the map
-- starts, and the list kept on the map's row, so every iteration (started later, within maxConcurrency, or again
-- after a retry or a restart) reads the same item. Null for every other kind of step. No default: adding the column
-- rewrites nothing.
ALTER TABLE instance_step ADD COLUMN items jsonb;
