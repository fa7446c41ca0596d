package toolnexus_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
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

// TestRequestZeroValue checks the docs: the zero Request is not a
// suspension until Pending gives it an ID and a Kind, and Validate then
// refuses it for its missing prompt; the zero Answer grants nothing and
// matches no request. Neither is comparable with ==.
func TestRequestZeroValue(t *testing.T) {
	t.Parallel()
	assert.False(t, toolnexus.Ok("x").WithMetadata(toolnexus.MetadataPending, toolnexus.Request{}).IsPending())
	r := toolnexus.Pending(toolnexus.Request{})
	req, ok := toolnexus.PendingOf(r)
	require.True(t, ok)
	assertErr(t, r.Validate(), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "`+req.ID+`" has no prompt`)

	var zero toolnexus.Answer
	assert.False(t, zero.OK)
	assertErr(t, zero.Check(toolnexus.Request{}, time.Now()), toolnexus.ErrAnswerMismatch,
		`toolnexus: answer does not match request: answer id "", request id ""`)

	assert.False(t, reflect.TypeFor[toolnexus.Request]().Comparable())
	assert.False(t, reflect.TypeFor[toolnexus.Answer]().Comparable())
}

func TestRequestJSON(t *testing.T) {
	t.Parallel()
	checkWire(t, []wireCase[toolnexus.Request]{
		{name: "minimal", value: toolnexus.Request{ID: "req-1", Kind: toolnexus.KindInput, Prompt: "Which environment?"},
			wire: `{"id":"req-1","kind":"input","prompt":"Which environment?"}`},
		{name: "every field", value: toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick",
			Data: map[string]any{"choices": []string{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"},
			wire: `{"id":"req-2","kind":"input","prompt":"Pick an environment","url":"https://example.com/pick","data":{"choices":["dev","prod"]},"expiresAt":"2026-12-01T00:00:00Z"}`,
			decoded: &toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick",
				Data: map[string]any{"choices": []any{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"}},
		{name: "zero keeps the required keys", value: toolnexus.Request{},
			wire: `{"id":"","kind":"","prompt":""}`},
	})
}

func TestAnswerJSON(t *testing.T) {
	t.Parallel()
	req := toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment"}
	checkWire(t, []wireCase[toolnexus.Answer]{
		{name: "resolved", value: req.Resolve(map[string]any{"choice": "prod"}),
			wire: `{"id":"req-2","ok":true,"data":{"choice":"prod"}}`},
		{name: "declined", value: req.Decline(toolnexus.ReasonDeclined),
			wire: `{"id":"req-2","ok":false,"reason":"declined"}`},
		{name: "resolved without data", value: req.Resolve(nil),
			wire: `{"id":"req-2","ok":true}`},
		{name: "zero", value: toolnexus.Answer{},
			wire: `{"id":"","ok":false}`},
	})
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
		{"every field", toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "Pick an environment", URL: "https://example.com/pick",
			Data: map[string]any{"choices": []string{"dev", "prod"}}, ExpiresAt: "2026-12-01T00:00:00Z"}, nil, ""},
		{"expiry with offset and fraction", with(func(r *toolnexus.Request) { r.ExpiresAt = "2026-12-01T02:00:00.123+02:00" }), nil, ""},

		{"zero", toolnexus.Request{}, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: "" request has no id`},
		{"no id", with(func(r *toolnexus.Request) { r.ID = "" }), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: "input" request has no id`},
		{"no kind", with(func(r *toolnexus.Request) { r.Kind = "" }), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "req-1" has no kind`},
		{"no prompt", with(func(r *toolnexus.Request) { r.Prompt = "" }), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "req-1" has no prompt`},
		{"relative url", with(func(r *toolnexus.Request) { r.URL = "/login" }), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: request "req-1": url "/login" is not an absolute URL`},
		{"url with a space", with(func(r *toolnexus.Request) { r.URL = "https://example.com/a b" }), toolnexus.ErrInvalidRequest,
			`toolnexus: invalid request: request "req-1": url "https://example.com/a b" is not an absolute URL`},
		{"date only expiry", with(func(r *toolnexus.Request) { r.ExpiresAt = "2026-12-01" }), toolnexus.ErrInvalidExpiry,
			`toolnexus: invalid expiresAt: "2026-12-01" is not RFC 3339`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assertErr(t, tt.req.Validate(), tt.wantErr, tt.wantMsg)
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
		back time.Time // what Expiry reads back: at itself when zero
	}{
		{"utc", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), "2026-12-01T00:00:00Z", time.Time{}},
		{"other zone is written in utc", time.Date(2026, 12, 1, 2, 0, 0, 0, plus2), "2026-12-01T00:00:00Z", time.Time{}},
		{"fraction kept", time.Date(2026, 12, 1, 0, 0, 0, 500_000_000, time.UTC), "2026-12-01T00:00:00.5Z", time.Time{}},
		{"nanoseconds kept", time.Date(2026, 12, 1, 0, 0, 0, 1, time.UTC), "2026-12-01T00:00:00.000000001Z", time.Time{}},
		// RFC 3339 writes the years 0 to 9999 only: a time outside them is
		// written as the nearest time it can hold, which Expiry reads.
		{"before year 0", time.Date(-5, 6, 1, 0, 0, 0, 0, time.UTC), "0000-01-01T00:00:00Z", time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"after year 9999", time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC), "9999-12-31T23:59:59.999999999Z",
			time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
		{"far after year 9999", time.Unix(1<<62, 0), "9999-12-31T23:59:59.999999999Z", time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
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
			want := tt.back
			if want.IsZero() {
				want = tt.at
			}
			assert.True(t, back.Equal(want), "Expiry() = %v, want %v", back, want)
		})
	}
	t.Run("the zero time clears the expiry", func(t *testing.T) {
		t.Parallel()
		req := toolnexus.Request{ID: "req-1", Kind: toolnexus.KindApproval, Prompt: "Deploy?", ExpiresAt: "2026-12-01T00:00:00Z"}
		got := req.WithExpiry(time.Time{})
		assert.Equal(t, "", got.ExpiresAt)
		assert.False(t, got.Expired(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)))
	})
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
		// RFC 3339 has a leap second as 23:59:60 in UTC, the second after
		// 23:59:59, and offsets of hours 00 to 23 and minutes 00 to 59.
		{"1998-12-31T23:59:60Z", time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"1998-12-31T15:59:60.5-08:00", time.Date(1999, 1, 1, 0, 0, 0, 500_000_000, time.UTC), false},
		{"1998-12-31T23:59:61Z", time.Time{}, true},
		{"1998-12-31T23:58:60Z", time.Time{}, true},
		{"1998-12-31T22:59:60Z", time.Time{}, true},
		{"2026-12-01T00:00:00+24:00", time.Time{}, true},
		{"2026-12-01T00:00:00-24:00", time.Time{}, true},
		{"2026-12-01T00:00:00+23:60", time.Time{}, true},
		{"2026-12-01T00:00:00+23:59", time.Date(2026, 11, 30, 0, 1, 0, 0, time.UTC), false},
		// RFC 3339 allows "t" and "z" in lower case.
		{"2026-12-01t00:00:00z", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-12-01t00:00:00Z", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-12-01T00:00:00z", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-12-01t02:00:00+02:00", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},

		{"2026-12-01", time.Time{}, true},
		{"2026-12-01T00:00:00", time.Time{}, true},
		{"2026-12-01T00:00Z", time.Time{}, true},
		{"2026-12-01 00:00:00Z", time.Time{}, true},
		{"2026-13-01T00:00:00Z", time.Time{}, true},
		{"1796083200", time.Time{}, true},
		{"Tue, 01 Dec 2026 00:00:00 GMT", time.Time{}, true},
		{"tomorrow", time.Time{}, true},
		{"z", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.expiresAt, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.Request{ExpiresAt: tt.expiresAt}.Expiry()
			if tt.wantErr {
				assertErr(t, err, toolnexus.ErrInvalidExpiry, `toolnexus: invalid expiresAt: "`+tt.expiresAt+`" is not RFC 3339`)
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
		{"lower case, before", "2026-12-01t00:00:00z", at.Add(-time.Second), false},
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
		assert.Equal(t, tt.want, tt.got, tt.name)
		assert.NoError(t, tt.got.Check(req, time.Now()), tt.name)
	}
}

// TestAnswerCheck checks that an answer applies only to the request it
// echoes, and only in time: a forged, misrouted or late answer is refused.
func TestAnswerCheck(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	req := toolnexus.Request{ID: "req-2", Kind: toolnexus.KindInput, Prompt: "p"}.WithExpiry(at)
	withExpiresAt := func(s string) toolnexus.Request { r := req; r.ExpiresAt = s; return r }
	tests := []struct {
		name    string
		answer  toolnexus.Answer
		req     toolnexus.Request
		now     time.Time
		wantErr error
		wantMsg string
	}{
		{"resolved in time", req.Resolve(map[string]any{"choice": "prod"}), req, at.Add(-time.Second), nil, ""},
		{"declined in time", req.Decline(toolnexus.ReasonDeclined), req, at.Add(-time.Nanosecond), nil, ""},
		{"no expiry never expires", toolnexus.Answer{ID: "r", OK: true}, toolnexus.Request{ID: "r"}, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), nil, ""},
		{"other request's id", toolnexus.Answer{ID: "req-9", OK: true}, req, at.Add(-time.Second), toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: answer id "req-9", request id "req-2"`},
		{"id in another case", toolnexus.Answer{ID: "REQ-2", OK: true}, req, at.Add(-time.Hour), toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: answer id "REQ-2", request id "req-2"`},
		{"empty answer id", toolnexus.Answer{OK: true}, req, at.Add(-time.Hour), toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: answer id "", request id "req-2"`},
		{"empty ids do not match", toolnexus.Answer{OK: true}, toolnexus.Request{Kind: "input", Prompt: "p"}, at, toolnexus.ErrAnswerMismatch,
			`toolnexus: answer does not match request: answer id "", request id ""`},
		{"at the expiry", req.Resolve(nil), req, at, toolnexus.ErrExpired,
			`toolnexus: request expired: request "req-2" expired at 2026-12-01T00:00:00Z`},
		{"after the expiry", req.Resolve(nil), req, at.Add(time.Hour), toolnexus.ErrExpired, ""},
		{"a late decline too", req.Decline(toolnexus.ReasonCancelled), req, at.Add(time.Nanosecond), toolnexus.ErrExpired, ""},
		{"expiry in another zone", req.Resolve(nil), withExpiresAt("2026-12-01T01:00:00+02:00"), at.Add(-time.Minute), toolnexus.ErrExpired,
			`toolnexus: request expired: request "req-2" expired at 2026-12-01T01:00:00+02:00`},
		{"unreadable expiry", req.Resolve(nil), withExpiresAt("soon"), at.Add(-time.Hour), toolnexus.ErrInvalidExpiry,
			`toolnexus: invalid expiresAt: "soon" is not RFC 3339`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.answer.Check(tt.req, tt.now)
			assertErr(t, err, tt.wantErr, tt.wantMsg)
			if tt.wantErr != nil {
				assert.Equal(t, tt.wantErr, sentinelOf(err), "it matches one sentinel only")
			}
		})
	}
}

// choice is a caller's struct an answer's data is decoded into.
type choice struct {
	Answer string   `json:"answer"`
	Count  int      `json:"count"`
	Tags   []string `json:"tags"`
	Inner  *struct {
		Level string `json:"level"`
	} `json:"inner"`
	Plain string
}

func TestAnswerDecodeData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    map[string]any
		want    choice
		wantErr string
	}{
		{"as decoded from JSON", map[string]any{"answer": "prod", "count": 2.0, "tags": []any{"a", "b"}, "inner": map[string]any{"level": "high"}, "Plain": "p"},
			choice{Answer: "prod", Count: 2, Tags: []string{"a", "b"}, Inner: &struct {
				Level string `json:"level"`
			}{"high"}, Plain: "p"}, ""},
		{"as built in this process", map[string]any{"answer": "prod", "count": 3, "tags": []string{"c"}}, choice{Answer: "prod", Count: 3, Tags: []string{"c"}}, ""},
		{"nil data", nil, choice{}, ""},
		{"unknown keys are ignored", map[string]any{"answer": "prod", "other": 1.0}, choice{Answer: "prod"}, ""},
		// Keys are exact: encoding/json would take these for the fields.
		{"key in another case", map[string]any{"ANSWER": "x", "Count": 5.0, "plain": "q"}, choice{}, ""},
		{"folded key", map[string]any{"anſwer": "x"}, choice{}, ""},
		{"folded key in a nested struct", map[string]any{"inner": map[string]any{"LEVEL": "x"}}, choice{Inner: &struct {
			Level string `json:"level"`
		}{}}, ""},
		{"exact key wins over a case variant", map[string]any{"answer": "a", "Answer": "b"}, choice{Answer: "a"}, ""},
		{"wrong type", map[string]any{"count": "two"}, choice{},
			"toolnexus: invalid JSON: json: cannot unmarshal string into Go struct field choice.count of type int"},
		{"fraction into an int", map[string]any{"count": 2.5}, choice{},
			"toolnexus: invalid JSON: json: cannot unmarshal number 2.5 into Go struct field choice.count of type int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got choice
			err := toolnexus.Answer{ID: "r", OK: true, Data: tt.data}.DecodeData(&got)
			if tt.wantErr != "" {
				assertErr(t, err, toolnexus.ErrInvalidJSON, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	t.Run("into a map", func(t *testing.T) {
		t.Parallel()
		var got map[string]int
		require.NoError(t, toolnexus.Answer{Data: map[string]any{"a": 1.0, "B": 2}}.DecodeData(&got))
		assert.Equal(t, map[string]int{"a": 1, "B": 2}, got)
	})
	t.Run("not a pointer", func(t *testing.T) {
		t.Parallel()
		data := map[string]any{"answer": "x"}
		assertErr(t, toolnexus.Answer{Data: data}.DecodeData((*choice)(nil)), toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: DecodeData needs a non-nil pointer, not *toolnexus_test.choice")
		assertErr(t, toolnexus.Answer{Data: data}.DecodeData(choice{}), toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: DecodeData needs a non-nil pointer, not toolnexus_test.choice")
		assertErr(t, toolnexus.Answer{Data: data}.DecodeData(nil), toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: DecodeData needs a non-nil pointer, not <nil>")
	})
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
		{"newline in the id", toolnexus.Request{ID: "req-1\nlevel=ERROR", Kind: toolnexus.KindInput, Prompt: "p"},
			`level=INFO msg=m req.id="req-1\nlevel=ERROR" req.kind=input`,
			`{"level":"INFO","msg":"m","req":{"id":"req-1\nlevel=ERROR","kind":"input"}}`},
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

func TestAnswersLatest(t *testing.T) {
	t.Parallel()
	assert.Nil(t, toolnexus.Answers(nil).Latest(), "the first run has no answer")
	assert.Nil(t, toolnexus.Answers{}.Latest())
	as := toolnexus.Answers{{ID: "a", OK: true}, {ID: "b", Reason: toolnexus.ReasonDeclined}}
	latest := as.Latest()
	assert.Equal(t, &toolnexus.Answer{ID: "b", Reason: toolnexus.ReasonDeclined}, latest)
	latest.OK = true
	assert.False(t, as[1].OK, "Latest returns a copy")
}

func TestAnswersGet(t *testing.T) {
	t.Parallel()
	first := toolnexus.Answer{ID: "a", OK: true, Data: map[string]any{"answer": "dev"}}
	second := toolnexus.Answer{ID: "b", Reason: toolnexus.ReasonDeclined}
	again := toolnexus.Answer{ID: "a", OK: true, Data: map[string]any{"answer": "prod"}}
	unnamed := toolnexus.Answer{OK: true}
	as := toolnexus.Answers{first, second, again, unnamed}
	tests := []struct {
		name   string
		id     string
		want   toolnexus.Answer
		wantOK bool
	}{
		{"the latest of two", "a", again, true},
		{"one", "b", second, true},
		{"none", "c", toolnexus.Answer{}, false},
		{"an empty id has none", "", toolnexus.Answer{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := as.Get(tt.id)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	_, ok := toolnexus.Answers(nil).Get("a")
	assert.False(t, ok)
	// Answers survive JSON as a list of answers.
	var back toolnexus.Answers
	require.NoError(t, json.Unmarshal([]byte(mustJSON(t, as)), &back))
	assert.Equal(t, as, back)
}

// selfMap returns a map that holds itself, and selfList a list that does.
func selfMap() map[string]any {
	m := map[string]any{"a": 1.0}
	m["self"] = m
	return m
}

func selfList() map[string]any {
	l := []any{"x", nil}
	l[1] = l
	return map[string]any{"l": l}
}

// deepData returns Data nested n objects deep.
func deepData(n int) map[string]any {
	m := map[string]any{"leaf": true}
	for range n - 1 {
		m = map[string]any{"a": m}
	}
	return m
}

// selfNode is a Go value that holds itself through a pointer.
type selfNode struct {
	Name string
	Next *selfNode
}

// hostileData are Data that nest without end or deeper than MaxDataDepth.
func hostileData() map[string]map[string]any {
	n := &selfNode{Name: "n"}
	n.Next = n
	deepList := []any{}
	for range toolnexus.MaxDataDepth + 5 {
		deepList = []any{deepList}
	}
	return map[string]map[string]any{
		"a map that holds itself":  selfMap(),
		"a list that holds itself": selfList(),
		"a pointer cycle":          {"n": n},
		"too deep":                 deepData(toolnexus.MaxDataDepth + 2),
		"a list too deep":          {"l": deepList},
	}
}

// TestRequestDataBound checks that Validate, DecodeData and the requests'
// conversions refuse Data that nests without end or too deep with
// ErrInvalidRequest, and take Data exactly MaxDataDepth deep.
func TestRequestDataBound(t *testing.T) {
	t.Parallel()
	for name, data := range hostileData() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, kind := range []string{toolnexus.KindInput, toolnexus.KindSampling} {
				req := toolnexus.Request{ID: "r", Kind: kind, Prompt: "p", Data: data}
				assertErr(t, req.Validate(), toolnexus.ErrInvalidRequest, `toolnexus: invalid request: request "r": data nests deeper than 10000 levels, or holds itself`)
				_, err := req.MCPInputRequest()
				assert.ErrorIs(t, err, toolnexus.ErrInvalidRequest)
			}
			var v struct{ A any }
			err := toolnexus.Answer{ID: "r", OK: true, Data: data}.DecodeData(&v)
			assertErr(t, err, toolnexus.ErrInvalidRequest, `toolnexus: invalid request: answer "r": data nests deeper than 10000 levels, or holds itself`)
			assert.NotPanics(t, func() { _ = fmt.Sprint(toolnexus.Ok("x").WithMetadata("d", data)) })
		})
	}
	req := toolnexus.Request{ID: "r", Kind: toolnexus.KindInput, Prompt: "p", Data: deepData(toolnexus.MaxDataDepth)}
	assert.NoError(t, req.Validate(), "as deep as allowed")
}

// TestDecodeDataSelfEmbedding decodes into a struct that embeds itself
// through a pointer, which encoding/json follows once.
func TestDecodeDataSelfEmbedding(t *testing.T) {
	t.Parallel()
	type node struct {
		*node
		Name string `json:"name"`
	}
	var n node
	require.NoError(t, toolnexus.Answer{ID: "r", Data: map[string]any{"name": "x", "NAME": "y"}}.DecodeData(&n))
	assert.Equal(t, "x", n.Name)
	assert.Nil(t, n.node, "an unexported embedded pointer is not set")
}
