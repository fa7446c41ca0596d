package toolnexus_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
)

// TestDecodeArguments checks that arguments decode with exact keys, as the
// state binds them, and that arguments no state binds decode nothing.
func TestDecodeArguments(t *testing.T) {
	t.Parallel()
	type deploy struct {
		Env      string `json:"env"`
		Replicas int64  `json:"replicas"`
		Inner    *struct {
			Region string `json:"region"`
		} `json:"inner"`
		Extra map[string]any `json:"extra"`
	}
	for _, tt := range []struct {
		name, args string
		want       deploy
		err        error
		msg        string
	}{
		{"exact keys", `{"env":"prod","replicas":3}`, deploy{Env: "prod", Replicas: 3}, nil, ""},
		{"a key that only folds to a field is refused", `{"ENV":"prod","Replicas":3}`, deploy{}, toolnexus.ErrInvalidArguments,
			`unknown key "ENV": keys are matched exactly, did you mean "env"? (it takes "env", "extra", "inner", "replicas")`},
		{"nested", `{"inner":{"Region":"x","region":"eu"}}`, deploy{}, toolnexus.ErrDuplicateKey,
			`toolnexus: duplicate JSON key: keys "Region" and "region" in the object at inner are one key when case is folded, as encoding/json folds it`},
		{"nested, exact", `{"inner":{"REGION":"x"},"extra":{"A":1}}`, deploy{}, toolnexus.ErrInvalidArguments,
			`unknown key "inner.REGION": keys are matched exactly, did you mean "region"? (it takes "region")`},
		{"a map takes any key", `{"inner":{"region":"x"},"extra":{"A":1,"a b":{"c":2}}}`, deploy{Inner: &struct {
			Region string `json:"region"`
		}{Region: "x"}, Extra: map[string]any{"A": 1.0, "a b": map[string]any{"c": 2.0}}}, nil, ""},
		{"folded", `{"Env":"prod","env":"staging"}`, deploy{}, toolnexus.ErrDuplicateKey,
			`toolnexus: duplicate JSON key: keys "Env" and "env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"twice", `{"env":"prod","env":"staging"}`, deploy{}, toolnexus.ErrDuplicateKey,
			`toolnexus: duplicate JSON key: key "env" appears twice in the top-level object`},
		{"a large integer keeps its digits", `{"replicas":9007199254740993}`, deploy{Replicas: 9007199254740993}, nil, ""},
		{"empty", ``, deploy{}, nil, ""},
		{"null", `null`, deploy{}, nil, ""},
		{"not JSON", `{"env":`, deploy{}, toolnexus.ErrInvalidJSON, ""},
		{"a value of the wrong type", `{"env":1}`, deploy{}, toolnexus.ErrInvalidJSON, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got deploy
			err := toolnexus.DecodeArguments(json.RawMessage(tt.args), &got)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				if tt.msg != "" {
					// The message of an unknown key is checked without
					// its prefix: see TestToolFor for the whole of it.
					assert.True(t, strings.HasSuffix(err.Error(), tt.msg), err.Error())
				}
				assert.Equal(t, deploy{}, got, "nothing is decoded")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	var m map[string]any
	require.ErrorIs(t, toolnexus.DecodeArguments(json.RawMessage(`{}`), m), toolnexus.ErrInvalidJSON)
}

// TestDecodeArgumentsUnknownKeys checks that a key that the value decoded
// into does not take is refused, at any depth, naming it and the keys
// taken, unless its struct opts into unknown keys.
func TestDecodeArgumentsUnknownKeys(t *testing.T) {
	t.Parallel()
	type tag struct {
		Name string `json:"name"`
	}
	type in struct {
		Env   string                 `json:"env"`
		Tags  []tag                  `json:"tags"`
		Inner *struct{ Zone string } `json:"inner"`
		Meta  map[string]tag         `json:"meta"`
		Any   any                    `json:"any"`
		Skip  string                 `json:"-"`
	}
	type open struct {
		Env     string         `json:"env"`
		Unknown map[string]any `json:",unknown"`
	}
	type empty struct{}
	tests := []struct {
		name, args string
		into       func() any
		want       any
		msg        string // the message after its prefix; "" when it decodes
	}{
		{"top level", `{"env":"dev","other":1}`, func() any { return &in{} }, nil,
			`unknown key "other" (it takes "any", "env", "inner", "meta", "tags")`},
		{"case variant", `{"Env":"dev"}`, func() any { return &in{} }, nil,
			`unknown key "Env": keys are matched exactly, did you mean "env"? (it takes "any", "env", "inner", "meta", "tags")`},
		{"nested struct", `{"inner":{"zone":"x"}}`, func() any { return &in{} }, nil,
			`unknown key "inner.zone": keys are matched exactly, did you mean "Zone"? (it takes "Zone")`},
		{"in a slice element", `{"tags":[{"name":"a"},{"nmae":"b"}]}`, func() any { return &in{} }, nil,
			`unknown key "tags[1].nmae" (it takes "name")`},
		{"in a map's value", `{"meta":{"k":{"title":"t"}}}`, func() any { return &in{} }, nil,
			`unknown key "meta.k.title" (it takes "name")`},
		{"escaped keys, deep", `{"t\u0061gs":[{"n\u0061me":"a","x\u0079":1}]}`, func() any { return &in{} }, nil,
			`unknown key "tags[0].xy" (it takes "name")`},
		{"a key that is not a plain name", `{"a b":1}`, func() any { return &in{} }, nil,
			`unknown key "[\"a b\"]" (it takes "any", "env", "inner", "meta", "tags")`},
		{"a field left out by its tag", `{"Skip":"x"}`, func() any { return &in{} }, nil,
			`unknown key "Skip" (it takes "any", "env", "inner", "meta", "tags")`},
		{"a struct of no keys", `{"a":1}`, func() any { return &empty{} }, nil,
			`unknown key "a" (it takes no keys)`},
		{"maps take any key", `{"meta":{"Any Key":{"name":"n"}},"any":{"x":{"y":1}}}`, func() any { return &in{} },
			&in{Meta: map[string]tag{"Any Key": {Name: "n"}}, Any: map[string]any{"x": map[string]any{"y": 1.0}}}, ""},
		{"a map of any", `{"Env":1,"x":[{"y":1}]}`, func() any { return &map[string]any{} },
			&map[string]any{"Env": 1.0, "x": []any{map[string]any{"y": 1.0}}}, ""},
		{"the unknown option opts out", `{"env":"dev","other":1,"more":{"a":1}}`, func() any { return &open{} },
			&open{Env: "dev", Unknown: unknownMembers(map[string]any{"other": 1.0, "more": map[string]any{"a": 1.0}})}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := tt.into()
			err := toolnexus.DecodeArguments(json.RawMessage(tt.args), v)
			if tt.msg == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, v)
				return
			}
			require.ErrorIs(t, err, toolnexus.ErrInvalidArguments)
			assert.True(t, strings.HasSuffix(err.Error(), tt.msg), err.Error())
			assert.Equal(t, tt.into(), v, "nothing is decoded")
		})
	}

	// A struct that opts into unknown keys still matches its own keys
	// exactly: a case variant of one is refused, never folded into it.
	var o open
	err := toolnexus.DecodeArguments(json.RawMessage(`{"ENV":"dev"}`), &o)
	require.ErrorIs(t, err, toolnexus.ErrInvalidArguments)
	assert.Contains(t, err.Error(), `unknown key "ENV": keys are matched exactly, did you mean "env"?`)
	assert.Equal(t, open{}, o)
}

func TestToolFor(t *testing.T) {
	t.Parallel()
	type in struct {
		Env   string `json:"env"`
		Count int64  `json:"count"`
		Tags  []struct {
			Name string `json:"name"`
		} `json:"tags"`
	}
	tests := []struct {
		name   string
		args   string
		want   in
		output string
	}{
		{"exact keys", `{"env":"prod","count":9007199254740993,"tags":[{"name":"a"}]}`,
			in{Env: "prod", Count: 9007199254740993, Tags: []struct {
				Name string `json:"name"`
			}{{"a"}}}, "ran"},
		{"folded keys are refused", `{"ENV":"prod","ſenv":"x","Count":3,"tags":[{"NAME":"a"}]}`, in{},
			`toolnexus: arguments are not what the tool takes: unknown key "ENV": keys are matched exactly, did you mean "env"? (it takes "count", "env", "tags")`},
		{"a folded key in a slice element", `{"tags":[{"name":"a"},{"NAME":"b"}]}`, in{},
			`toolnexus: arguments are not what the tool takes: unknown key "tags[1].NAME": keys are matched exactly, did you mean "name"? (it takes "name")`},
		{"unknown keys are refused", `{"env":"dev","other":1}`, in{},
			`toolnexus: arguments are not what the tool takes: unknown key "other" (it takes "count", "env", "tags")`},
		{"no arguments", ``, in{}, "ran"},
		{"wrong type", `{"env":1}`, in{},
			"toolnexus: arguments are not what the tool takes: json: cannot unmarshal number into Go struct field in.env of type string"},
		{"not an object", `[]`, in{}, "toolnexus: arguments are not a JSON object but an array"},
		{"not JSON", `{`, in{}, "toolnexus: arguments are not JSON: unexpected end of JSON input"},
		{"names one when case is folded", `{"env":"staging","Env":"prod"}`, in{},
			`toolnexus: arguments are ambiguous: duplicate JSON key: keys "env" and "Env" in the top-level object are one key when case is folded, as encoding/json folds it`},
		{"a name twice", `{"tags":[{"name":"a","name":"b"}]}`, in{},
			`toolnexus: arguments are ambiguous: duplicate JSON key: key "name" appears twice in the object at tags[0]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got in
			tool := toolnexus.ToolFor(func(_ context.Context, v in, _ toolnexus.Answers) toolnexus.ToolResult {
				got = v
				return toolnexus.Ok("ran")
			})
			r := tool(context.Background(), json.RawMessage(tt.args), nil)
			assert.Equal(t, tt.output, r.Output)
			assert.Equal(t, tt.output != "ran", r.IsError)
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Nil(t, toolnexus.ToolFor[in](nil), "a nil fn is a nil Tool")
}

func TestCheckArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, args, want, err string
	}{
		{"an object", ` {"env":"prod"} `, ` {"env":"prod"} `, ""},
		{"none", ``, `{}`, ""},
		{"null", `null`, `{}`, ""},
		{"an array", `[1]`, "", `toolnexus: arguments of "deploy" are not a JSON object but an array`},
		{"not JSON", `{"env":`, "", `toolnexus: arguments of "deploy" are not JSON: unexpected end of JSON input`},
		{"a name twice", `{"env":1,"env":2}`, "", `toolnexus: arguments of "deploy" are ambiguous: duplicate JSON key: key "env" appears twice in the top-level object`},
		{"any key", `{"whatever":1}`, `{"whatever":1}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toolnexus.CheckArguments("deploy", json.RawMessage(tt.args))
			if tt.err != "" {
				require.ErrorIs(t, err, toolnexus.ErrInvalidArguments)
				assert.EqualError(t, err, tt.err)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// TestReportProgressAllocations checks the promise of ReportProgress: a
// tool that reports with no listener allocates nothing.
func TestReportProgressAllocations(t *testing.T) {
	ctx := context.WithValue(context.Background(), struct{ k int }{1}, "another value")
	allocs := testing.AllocsPerRun(1000, func() {
		toolnexus.ReportProgress(ctx, 1, 2, "half")
	})
	assert.Zero(t, allocs)
}

// TestDecodeArgumentsUnknownOptOut checks a struct that opts into unknown
// keys with a field tagged `json:",unknown"`: other keys are left out, but
// a key that folds to a field, or names that field, is still refused.
func TestDecodeArgumentsUnknownOptOut(t *testing.T) {
	t.Parallel()
	type loose struct {
		Env   string         `json:"env"`
		Extra map[string]any `json:",unknown"`
	}
	var v loose
	require.NoError(t, toolnexus.DecodeArguments(json.RawMessage(`{"env":"prod","newer":{"a":1}}`), &v))
	assert.Equal(t, loose{Env: "prod", Extra: unknownMembers(map[string]any{"newer": map[string]any{"a": 1.0}})}, v)
	for args, want := range map[string]string{
		`{"ENV":"prod"}`:       `toolnexus: unknown key "ENV": keys are matched exactly, did you mean "env"? (it takes "env")`,
		`{"Extra":{"a":1}}`:    `toolnexus: unknown key "Extra" (it takes "env")`,
		`{"env":"a","x":{"y":`: "",
	} {
		err := toolnexus.DecodeArguments(json.RawMessage(args), &loose{})
		require.Error(t, err, args)
		if want != "" {
			assert.Equal(t, want, err.Error())
			assert.ErrorIs(t, err, toolnexus.ErrInvalidArguments)
		}
	}
	type strict struct {
		Env string `json:"env"`
	}
	err := toolnexus.DecodeArguments(json.RawMessage(`{"x":1}`), &strict{})
	assert.EqualError(t, err, `toolnexus: unknown key "x" (it takes "env")`)
	assert.ErrorIs(t, err, toolnexus.ErrInvalidArguments)
}
