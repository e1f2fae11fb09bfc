-- An approval's secret, stored with the pending row, and the seal (an HMAC
-- under it) that every decision agentry writes carries: a decision written
-- around agentry does not count (trace.Approval.Checked, DESIGN §12). Rows
-- written before have neither.
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS secret TEXT NOT NULL DEFAULT '';
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS seal TEXT NOT NULL DEFAULT '';
