-- Span events (a retry's backoff, a wait for a concurrency slot) as one JSON
-- array per span, NULL when the span has none: most spans have none, and
-- they are only ever read with their span.
ALTER TABLE spans ADD COLUMN events TEXT;
