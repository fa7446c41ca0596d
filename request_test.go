package toolnexus_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

func TestRequestConstants(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "authorization", toolnexus.KindAuthorization)
	assert.Equal(t, "approval", toolnexus.KindApproval)
	assert.Equal(t, "input", toolnexus.KindInput)
	assert.Equal(t, "question", toolnexus.KindQuestion)
	assert.Equal(t, "declined", toolnexus.ReasonDeclined)
	assert.Equal(t, "cancelled", toolnexus.ReasonCancelled)
	assert.Equal(t, "expired", toolnexus.ReasonExpired)
	assert.Equal(t, "pending", toolnexus.MetadataPending)
	assert.Equal(t, "Authorization required to continue", toolnexus.DefaultAuthPrompt)
}

func TestRequestValidate(t *testing.T) {
	t.Parallel()
	valid := toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"}
	with := func(f func(*toolnexus.Request)) toolnexus.Request {
		r := valid
		f(&r)
		return r
	}
	tests := []struct {
		name    string
		req     toolnexus.Request
		wantErr error
		wantMsg string
	}{
		{"minimal", valid, nil, ""},
		{"open kind", with(func(r *toolnexus.Request) { r.Kind = "captcha" }), nil, ""},
		{"full", toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick",
			Data: map[string]any{"choices": []string{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"}, nil, ""},
		{"expiry with offset and fraction", with(func(r *toolnexus.Request) { r.ExpiresAt = "2026-12-01T02:00:00.123+02:00" }), nil, ""},

		{"zero", toolnexus.Request{}, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: "" request has no id`},
		{"no id", with(func(r *toolnexus.Request) { r.ID = "" }), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: "input" request has no id`},
		{"no kind", with(func(r *toolnexus.Request) { r.Kind = "" }), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "req-1" has no kind`},
		{"no prompt", with(func(r *toolnexus.Request) { r.Prompt = "" }), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "req-1" has no prompt`},
		{"relative url", with(func(r *toolnexus.Request) { r.URL = "/login" }), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: request "req-1": url "/login" is not an absolute URL`},
		{"url with a space", with(func(r *toolnexus.Request) { r.URL = "https://example.com/a b" }), toolnexus.ErrInvalidRequest, ""},
		{"date only expiry", with(func(r *toolnexus.Request) { r.ExpiresAt = "2026-12-01" }), toolnexus.ErrInvalidExpiry,
			`toolnexus: invalid expiresAt: "2026-12-01" is not RFC 3339`},
		{"unix time expiry", with(func(r *toolnexus.Request) { r.ExpiresAt = "1796083200" }), toolnexus.ErrInvalidExpiry, ""},
		{"expiry without zone", with(func(r *toolnexus.Request) { r.ExpiresAt = "2026-12-01T00:00:00" }), toolnexus.ErrInvalidExpiry, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.req.Validate()
			assertErr(t, err, tt.wantErr, tt.wantMsg)
		})
	}
}

func TestRequestWithExpiry(t *testing.T) {
	t.Parallel()
	plus2 := time.FixedZone("+02:00", 2*60*60)
	tests := []struct {
		name string
		at   time.Time
		want string
	}{
		{"utc", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), "2026-12-01T00:00:00Z"},
		{"other zone is written in utc", time.Date(2026, 12, 1, 2, 0, 0, 0, plus2), "2026-12-01T00:00:00Z"},
		{"fraction kept", time.Date(2026, 12, 1, 0, 0, 0, 500_000_000, time.UTC), "2026-12-01T00:00:00.5Z"},
		{"nanoseconds kept", time.Date(2026, 12, 1, 0, 0, 0, 1, time.UTC), "2026-12-01T00:00:00.000000001Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?"}
			got := req.WithExpiry(tt.at)
			assert.Equal(t, tt.want, got.ExpiresAt)
			assert.Empty(t, req.ExpiresAt, "the receiver is not changed")
			assert.NoError(t, got.Validate())

			back, err := got.Expiry()
			require.NoError(t, err)
			assert.True(t, back.Equal(tt.at), "Expiry() = %v, want %v", back, tt.at)
		})
	}
}

func TestRequestExpiry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expiresAt string
		want      time.Time
		wantErr   bool
	}{
		{"", time.Time{}, false},
		{"2026-12-01T00:00:00Z", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-12-01T02:00:00+02:00", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-12-01T00:00:00.25Z", time.Date(2026, 12, 1, 0, 0, 0, 250_000_000, time.UTC), false},
		{"2026-12-01", time.Time{}, true},
		{"2026-12-01 00:00:00Z", time.Time{}, true},
		{"Tue, 01 Dec 2026 00:00:00 GMT", time.Time{}, true},
		{"tomorrow", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.expiresAt, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.Request{ExpiresAt: tt.expiresAt}.Expiry()
			if tt.wantErr {
				requireErrorPrefix(t, err)
				assert.ErrorIs(t, err, toolnexus.ErrInvalidExpiry)
				assert.True(t, got.IsZero())
				return
			}
			require.NoError(t, err)
			assert.True(t, tt.want.Equal(got), "Expiry() = %v, want %v", got, tt.want)
			assert.Equal(t, tt.want.IsZero(), got.IsZero())
		})
	}
}

func TestRequestExpired(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		expiresAt string
		now       time.Time
		want      bool
	}{
		{"no expiry never expires", "", at.AddDate(100, 0, 0), false},
		{"before", "2026-12-01T00:00:00Z", at.Add(-time.Nanosecond), false},
		{"at the instant", "2026-12-01T00:00:00Z", at, true},
		{"after", "2026-12-01T00:00:00Z", at.Add(time.Second), true},
		{"other zone, before", "2026-12-01T02:00:00+02:00", at.Add(-time.Minute), false},
		{"other zone, after", "2026-12-01T02:00:00+02:00", at.Add(time.Minute), true},
		{"unreadable counts as expired", "soon", at.AddDate(-10, 0, 0), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "p", ExpiresAt: tt.expiresAt}
			assert.Equal(t, tt.want, req.Expired(tt.now))
		})
	}
}

func TestRequestResolveAndDecline(t *testing.T) {
	t.Parallel()
	req := toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment"}
	tests := []struct {
		name string
		got  toolnexus.Answer
		want toolnexus.Answer
	}{
		{"resolve", req.Resolve(map[string]any{"choice": "prod"}), toolnexus.Answer{ID: "req-2", OK: true, Data: map[string]any{"choice": "prod"}}},
		{"resolve without data", req.Resolve(nil), toolnexus.Answer{ID: "req-2", OK: true}},
		{"decline", req.Decline(toolnexus.ReasonDeclined), toolnexus.Answer{ID: "req-2", Reason: "declined"}},
		{"cancel", req.Decline(toolnexus.ReasonCancelled), toolnexus.Answer{ID: "req-2", Reason: "cancelled"}},
		{"decline without reason", req.Decline(""), toolnexus.Answer{ID: "req-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.got)
			assert.NoError(t, tt.got.Check(req, time.Now()))
		})
	}
}

func TestAnswerCheck(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	req := toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "p", ExpiresAt: "2026-12-01T00:00:00Z"}
	tests := []struct {
		name    string
		answer  toolnexus.Answer
		req     toolnexus.Request
		now     time.Time
		wantErr error
		wantMsg string
	}{
		{"resolved in time", req.Resolve(nil), req, at.Add(-time.Second), nil, ""},
		{"declined in time", req.Decline(toolnexus.ReasonDeclined), req, at.Add(-time.Second), nil, ""},
		{"no expiry", toolnexus.Answer{ID: "req-3", OK: true}, toolnexus.Request{ID: "req-3", Kind: "input", Prompt: "p"}, at.AddDate(50, 0, 0), nil, ""},
		{"other id", toolnexus.Answer{ID: "req-9", OK: true}, req, at.Add(-time.Second), toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: answer id "req-9", request id "req-2"`},
		{"empty id", toolnexus.Answer{OK: true}, req, at.Add(-time.Second), toolnexus.ErrAnswerMismatch, ""},
		{"empty ids do not match", toolnexus.Answer{OK: true}, toolnexus.Request{Kind: "input", Prompt: "p"}, at, toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: answer id "", request id ""`},
		{"at the expiry", req.Resolve(nil), req, at, toolnexus.ErrExpired,
			`toolnexus: request expired: request "req-2" expired at 2026-12-01T00:00:00Z`},
		{"after the expiry", req.Resolve(nil), req, at.Add(time.Hour), toolnexus.ErrExpired, ""},
		{"unreadable expiry", toolnexus.Answer{ID: "req-4", OK: true}, toolnexus.Request{ID: "req-4", Kind: "input", Prompt: "p", ExpiresAt: "soon"},
			at, toolnexus.ErrInvalidExpiry, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.answer.Check(tt.req, tt.now)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
		})
	}
}

func TestRequestLogValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		req      toolnexus.Request
		wantText string
		wantJSON string
	}{
		{"prompt, url and data are not logged",
			toolnexus.Request{ID: "req-2", Kind: toolnexus.KindAuthorization, Prompt: "secret prompt", URL: "https://example.com/login?state=s3cr3t",
				Data: map[string]any{"token": "s3cr3t"}, ExpiresAt: "2026-12-01T00:00:00Z"},
			`level=INFO msg=m req.id=req-2 req.kind=authorization req.expiresAt=2026-12-01T00:00:00Z`,
			`{"level":"INFO","msg":"m","req":{"id":"req-2","kind":"authorization","expiresAt":"2026-12-01T00:00:00Z"}}`},
		{"no expiry", toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "p"},
			`level=INFO msg=m req.id=req-1 req.kind=input`,
			`{"level":"INFO","msg":"m","req":{"id":"req-1","kind":"input"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text, js := logWithoutTime(slog.Any("req", tt.req))
			assert.Equal(t, tt.wantText, text)
			assert.Equal(t, tt.wantJSON, js)
		})
	}
}
