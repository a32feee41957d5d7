-- An instance row is updated at every step (current step, attempt, when it started), but none of those columns is
-- indexed: PostgreSQL can then update it in place on its page ("HOT": no new index entries in the five indexes of
-- workflow_instance), as long as the page has room for the new version. Full pages (the default fillfactor 100)
-- send most of these updates to another page, with an entry in every index. Leaving a fifth of each page free keeps
-- the step loop's instance updates on their page. Only pages written from now on are affected: nothing is rewritten.
ALTER TABLE workflow_instance SET (fillfactor = 80);
