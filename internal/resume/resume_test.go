package resume_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/resume"
)

func TestAnswers(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	a := toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"}.WithExpiry(now.Add(time.Hour))
	b := toolnexus.Request{ID: "b", Kind: toolnexus.KindInput, Prompt: "B?"}
	earlier := toolnexus.Answers{{ID: "z", OK: true}, {ID: "a", Reason: toolnexus.ReasonDeclined}}
	tests := []struct {
		name    string
		given   toolnexus.Answers
		at      time.Time
		want    toolnexus.Answers
		wantErr error
		msg     string
	}{
		{"one", toolnexus.Answers{b.Resolve(nil)}, now, toolnexus.Answers{earlier[0], earlier[1], b.Resolve(nil)}, nil, ""},
		{"replaces an earlier answer", toolnexus.Answers{a.Resolve(nil), b.Resolve(nil)}, now,
			toolnexus.Answers{earlier[0], a.Resolve(nil), b.Resolve(nil)}, nil, ""},
		{"none", nil, now, nil, toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: tool "t" was resumed without an answer`},
		{"unknown id", toolnexus.Answers{b.Resolve(nil), {ID: "c", OK: true}}, now, nil, toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: tool "t" waits on request "a", "b", not on "c"`},
		{"empty id", toolnexus.Answers{{OK: true}}, now, nil, toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: tool "t" waits on request "a", "b", not on ""`},
		{"expired", toolnexus.Answers{a.Resolve(nil)}, now.Add(time.Hour), nil, toolnexus.ErrExpired,
			`toolnexus: request expired: request "a" expired at 2026-12-01T13:00:00Z`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := resume.Answers("t", []toolnexus.Request{a, b}, earlier, tc.given, tc.at)
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
				assert.EqualError(t, err, tc.msg)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	assert.Len(t, earlier, 2, "earlier is not changed")
}
