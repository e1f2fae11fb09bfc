-- Find within a run (trace.SpanFinder): the words of each span's task and
-- result, in a GIN index over an expression, kept current by every write,
-- so a find never has to catch up (trace/sqlite indexes lazily instead).
-- span_words is what is indexed; FindSpans must call it exactly so to use
-- the index. Words are split as trace.SpanQuery.Words splits them: ASCII
-- punctuation becomes a space first, so the parser sees no URLs, paths,
-- e-mail addresses or hyphenated words, only runs of letters and digits;
-- 'simple' lower-cases them and neither stems nor drops stop words. Only
-- the first 100,000 characters count: a tsvector holds at most 1 MB, and a
-- write must never fail because a tool returned a book.
--
-- 'simple' lower-cases as the database's ctype does, which in the C locale
-- is ASCII only; there the text is lower-cased with ICU's root collation
-- first, where the server has ICU, as the runs' text filter does.
DO $$
DECLARE
    folded text := 'coalesce(attributes ->> ''task'', '''') || '' '' || coalesce(attributes ->> ''result'', '''')';
BEGIN
    IF (SELECT datlocprovider = 'c' AND datctype IN ('C', 'POSIX') FROM pg_database WHERE datname = current_database())
        AND EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
        folded := 'lower((' || folded || ') COLLATE "und-x-icu")';
    END IF;
    EXECUTE format($f$
        CREATE FUNCTION span_words(attributes json) RETURNS tsvector
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN to_tsvector('simple'::regconfig, regexp_replace(left(%s, 100000), '[[:punct:]]+', ' ', 'g'))
    $f$, folded);
END $$;
CREATE INDEX spans_words ON spans USING gin (span_words(attributes));
