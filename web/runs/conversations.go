package runs

import "context"

// groupConversations puts the runs of one conversation together, at the
// place of its newest run on the page, and marks the follow-ups; other runs
// keep their order.
func (rp *Pages) groupConversations(ctx context.Context, rows []RunRow) ([]RunRow, error) {
	if len(rows) == 0 {
		return rows, nil
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	convs, err := rp.store.ConversationIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]RunRow, 0, len(rows))
	placed := map[string]bool{}
	for i, r := range rows {
		conv := convs[r.ID]
		if placed[r.ID] {
			continue
		}
		for _, o := range rows[i:] {
			if o.ID == r.ID || conv != "" && convs[o.ID] == conv {
				o.Conversation, o.FollowUp = convs[o.ID], convs[o.ID] != "" && convs[o.ID] != o.ID
				out = append(out, o)
				placed[o.ID] = true
			}
		}
	}
	return out, nil
}
