package loopstore_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/internal/loopstore"
)

func TestDocument(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 40)
	tests := []struct {
		name, data string
		max        int64
		want       map[string]json.RawMessage
		err        error
		msg        string
	}{
		{"members", ` {"messages": [1] ,"turn":null} `, 0,
			map[string]json.RawMessage{"messages": json.RawMessage(`[1]`), "turn": json.RawMessage(`null`)}, nil, ""},
		{"none", `{}`, 2, map[string]json.RawMessage{}, nil, ""},
		{"over the limit", `{}`, 1, nil, toolnexus.ErrPartTooLarge,
			"toolnexus: JSON document too large: 2 bytes, over the limit of 1 bytes"},
		{"not an object", `[]`, 0, nil, toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: the conversation is not a JSON object"},
		{"not JSON", `{"turn":}`, 0, nil, toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: the conversation is not JSON"},
		{"cut short", `{"turn":null`, 0, nil, toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: the conversation is not JSON"},
		{"two values", `{} {}`, 0, nil, toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: the conversation is not JSON"},
		{"a string", `"{}"`, 0, nil, toolnexus.ErrInvalidJSON, "toolnexus: invalid JSON: the conversation is not a JSON object"},
		{"an escaped key", `{"\u0074urn":null}`, 0, map[string]json.RawMessage{"turn": json.RawMessage(`null`)}, nil, ""},
		{"values of every kind", `{"messages":[1,-2.5e3,"a\"]}",true,null,{"x":[{}]},[]],"turn":{"a":"}"}}`, 0,
			map[string]json.RawMessage{"messages": json.RawMessage(`[1,-2.5e3,"a\"]}",true,null,{"x":[{}]},[]]`), "turn": json.RawMessage(`{"a":"}"}`)}, nil, ""},
		{"a folded key", `{"Turn":null}`, 0, nil, toolnexus.ErrInvalidJSON,
			`toolnexus: invalid JSON: the conversation has an unknown key "Turn"`},
		{"a key folded by encoding/json", `{"meſſages":null}`, 0, nil, toolnexus.ErrInvalidJSON,
			`toolnexus: invalid JSON: the conversation has an unknown key "meſſages"`},
		{"a repeated key", `{"turn":null,"turn":{}}`, 0, nil, toolnexus.ErrDuplicateKey,
			`toolnexus: duplicate JSON key: the conversation has the key "turn" twice`},
		{"a long key, cut", `{"` + long + `":1}`, 0, nil, toolnexus.ErrInvalidJSON,
			`toolnexus: invalid JSON: the conversation has an unknown key "` + strings.Repeat("é", 20) + `"… (80 bytes)`},
		{"a key that is not UTF-8", "{\"t\xffurn\":null}", 0, nil, toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: a string in the conversation is not valid UTF-8"},
		{"a lone surrogate in a value", `{"turn":"\ud800"}`, 0, nil, toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: a string in the conversation is not valid UTF-8"},
		{"too deep", `{"turn":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, 0, nil, toolnexus.ErrInvalidJSON,
			"toolnexus: invalid JSON: the conversation is not JSON"},
		{"a key with control characters, quoted", `{"\u001b[31m":1}`, 0, nil, toolnexus.ErrInvalidJSON,
			`toolnexus: invalid JSON: the conversation has an unknown key "\x1b[31m"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := loopstore.Document("the conversation", []byte(tt.data), tt.max, "messages", "turn")
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				assert.EqualError(t, err, tt.msg)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	got, err := loopstore.Object("a message", []byte(`{"role":"user","anything":[{"role":1}]}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]json.RawMessage{"role": json.RawMessage(`"user"`), "anything": json.RawMessage(`[{"role":1}]`)}, got, "any key")
}

func TestMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw string
		withRole  bool
		want      []loopstore.Message
		msg       string
	}{
		{"none", ``, true, nil, ""},
		{"null", `null`, true, nil, ""},
		{"as stored", `[{"role":"user","content":"hi"}, {"content":[],"role":"assistant"}]`, true, []loopstore.Message{
			loopstore.NewMessage(json.RawMessage(`{"role":"user","content":"hi"}`), "user"),
			loopstore.NewMessage(json.RawMessage(`{"content":[],"role":"assistant"}`), "assistant"),
		}, ""},
		{"without roles", `[{"type":"function_call_output"}]`, false, []loopstore.Message{loopstore.NewMessage(json.RawMessage(`{"type":"function_call_output"}`), "")}, ""},
		{"not an array", `{}`, true, nil, "toolnexus: invalid JSON: the messages are not a JSON array"},
		{"not an object", `[{"role":"user"},"hi"]`, true, nil, "toolnexus: invalid JSON: message 1 is not a JSON object"},
		{"no role", `[{"content":"hi"}]`, true, nil, "toolnexus: invalid JSON: message 0 has no role"},
		{"a null role", `[{"role":null}]`, true, nil, "toolnexus: invalid JSON: message 0 has no role"},
		{"a role that is no string", `[{"role":1}]`, true, nil, "toolnexus: invalid JSON: message 0 has no role"},
		{"a folded role", `[{"Role":"user"}]`, true, nil, "toolnexus: invalid JSON: message 0 has no role"},
		{"a role that is not UTF-8", "[{\"role\":\"us\xffer\"}]", true, nil, "toolnexus: invalid JSON: a string in the messages is not valid UTF-8"},
		{"an escaped role", `[{"role":"\u0075ser"}]`, true, []loopstore.Message{loopstore.NewMessage(json.RawMessage(`{"role":"\u0075ser"}`), "user")}, ""},
		{"two roles", `[{"role":"user","role":"assistant"}]`, true, nil,
			`toolnexus: duplicate JSON key: message 0 has the key "role" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := loopstore.Messages("message", json.RawMessage(tt.raw), tt.withRole)
			if tt.msg != "" {
				require.ErrorIs(t, err, toolnexus.ErrInvalidJSON)
				assert.EqualError(t, err, tt.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	out, err := json.Marshal(loopstore.Params([]loopstore.Message{loopstore.NewMessage(json.RawMessage(`{"role":"user", "content":"<b>"}`), "user")},
		func(v any) any { return v }))
	require.NoError(t, err)
	assert.Equal(t, `[{"role":"user","content":"\u003cb\u003e"}]`, string(out), "as stored, compacted as encoding/json compacts it")
}

// waitingTurn is a stored turn whose call c1 of deploy waits on the
// request r1, and deployUse the model's message that made the call.
const (
	waitingTurn = `{"calls":[{"id":"c1","name":"deploy","arguments":{"env":"prod"},"result":{"output":"Deploy?","isError":true,` +
		`"metadata":{"pending":{"id":"r1","kind":"approval","prompt":"Deploy?"}}}}]}`
	deployUse = `{"role":"assistant","content":[{"type":"text","text":"On it."},{"type":"tool_use","id":"c1","name":"deploy","input":{"env":"prod"}}]}`
)

func TestTurn(t *testing.T) {
	t.Parallel()
	waiting := waitingTurn
	turn, err := loopstore.Turn(json.RawMessage(waiting))
	require.NoError(t, err)
	assert.Equal(t, "r1", turn.Waiting()[0].Request.ID)
	for _, none := range []string{``, `null`} {
		turn, err := loopstore.Turn(json.RawMessage(none))
		require.NoError(t, err)
		assert.Equal(t, toolnexus.Turn{}, turn)
	}
	_, err = loopstore.Turn(json.RawMessage(`{"calls":[{"id":"c1","name":"deploy","result":{"output":"done","isError":false}}]}`))
	require.ErrorIs(t, err, toolnexus.ErrInvalidTurn)
	assert.EqualError(t, err, "toolnexus: invalid turn: the parked turn waits on nothing")
	_, err = loopstore.Turn(json.RawMessage(`{"calls":[]}`))
	require.ErrorIs(t, err, toolnexus.ErrInvalidTurn)
	_, err = loopstore.Turn(json.RawMessage(strings.Replace(waiting, `"id":"c1"`, `"ID":"c1"`, 1)))
	require.ErrorIs(t, err, toolnexus.ErrInvalidTurn, "keys are exact")
}

func TestRole(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "tool", loopstore.Role(map[string]any{"role": "tool", "content": "x"}))
	assert.Equal(t, "user", loopstore.Role(json.RawMessage(`{"role":"user"}`)))
	assert.Empty(t, loopstore.Role(json.RawMessage(`{"Role":"user"}`)))
	assert.Empty(t, loopstore.Role(json.RawMessage(`{"role":1}`)))
	assert.Empty(t, loopstore.Role(make(chan int)), "does not marshal")
	assert.Equal(t, `["user" "assistant" "\x1b"]`, loopstore.Roles([]string{"user", "assistant", "\x1b"}))
	assert.Equal(t, `[]`, loopstore.Roles(nil))
}

func TestConversation(t *testing.T) {
	t.Parallel()
	msgs, turn, err := loopstore.Conversation([]byte(`{"messages":[{"role":"user","content":"hi"}]}`), 64, loopstore.AnthropicCalls)
	require.NoError(t, err)
	assert.Equal(t, []loopstore.Message{loopstore.NewMessage(json.RawMessage(`{"role":"user","content":"hi"}`), "user")}, msgs)
	assert.Equal(t, toolnexus.Turn{}, turn)
	both, parked, err := loopstore.Conversation([]byte(`{"messages":[{"role":"user","content":"hi"},`+deployUse+`],"turn":`+waitingTurn+`}`), 0, loopstore.AnthropicCalls)
	require.NoError(t, err)
	assert.Len(t, both, 2)
	assert.Equal(t, "r1", parked.Waiting()[0].Request.ID, "the model's call, parked")
	params := loopstore.Params(msgs, func(v any) string { return string(v.(json.RawMessage)) })
	assert.Equal(t, []string{`{"role":"user","content":"hi"}`}, params)
	assert.Nil(t, loopstore.Params(nil, func(any) string { return "" }))

	for data, want := range map[string]error{
		`{"messages":[{"role":"user"}]}`:                                           toolnexus.ErrPartTooLarge,
		`{"messages":{}}`:                                                          toolnexus.ErrInvalidJSON,
		`{"messages":[{"content":"hi"}]}`:                                          toolnexus.ErrInvalidJSON,
		`{"turn":{"calls":[{"id":"c","name":"t"}]}}`:                               toolnexus.ErrInvalidTurn,
		`{"messages":[{"role":"user","content":"hi"}],"turn":` + waitingTurn + `}`: loopstore.ErrTurnMismatch,
		`{"turn":` + waitingTurn + `}`:                                             loopstore.ErrTurnMismatch,
	} {
		max := int64(0)
		if want == toolnexus.ErrPartTooLarge {
			max = 8
		}
		_, _, err := loopstore.Conversation([]byte(data), max, loopstore.AnthropicCalls)
		assert.ErrorIs(t, err, want, data)
	}
}

func TestOne(t *testing.T) {
	t.Parallel()
	m, err := loopstore.One("the stored message", []byte(" "+deployUse+"\n"), 1<<10, true)
	require.NoError(t, err)
	assert.Equal(t, loopstore.NewMessage(json.RawMessage(deployUse), "assistant"), m)
	m, err = loopstore.One("the stored item", []byte(`{"type":"function_call_output"}`), 0, false)
	require.NoError(t, err)
	assert.Equal(t, loopstore.NewMessage(json.RawMessage(`{"type":"function_call_output"}`), ""), m)
	for data, want := range map[string]string{
		`{"role":"user"}`:         "toolnexus: JSON document too large: 15 bytes, over the limit of 8 bytes",
		`{"role":`:                "toolnexus: invalid JSON: the stored message is not JSON",
		`[]`:                      "toolnexus: invalid JSON: the stored message is not a JSON object",
		`{"content":"hi"}`:        "toolnexus: invalid JSON: the stored message has no role",
		`{"role":"a","role":"b"}`: `toolnexus: duplicate JSON key: the stored message has the key "role" twice`,
	} {
		max := int64(0)
		if strings.HasPrefix(want, "toolnexus: JSON document too large") {
			max = 8
		}
		_, err := loopstore.One("the stored message", []byte(data), max, true)
		assert.EqualError(t, err, want, data)
	}
}

// FuzzObject checks the object and array splitting against encoding/json:
// a JSON object reads as the members json.Decoder finds in it, refused
// when a name comes twice or a string is not UTF-8, and its arrays as
// their elements.
func FuzzObject(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"a\"]}"},1,[],{}],"turn":null}`))
	f.Add([]byte(` { "a" : [ 1 , 2 ] , "b" : { } } `))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Add([]byte(`{"\u0061":1,"a":2}`))
	f.Add([]byte(`[{"role":"x"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := loopstore.Object("x", data)
		want, dup, ok := decoderMembers(data)
		if !ok || !utf8.Valid(data) {
			// encoding/json takes bytes that are not UTF-8 in a string;
			// the store, as the module's reader, refuses them.
			require.Error(t, err)
			return
		}
		if dup {
			require.ErrorIs(t, err, toolnexus.ErrDuplicateKey)
			return
		}
		require.NoError(t, err)
		require.Len(t, got, len(want))
		for name, v := range want {
			assert.JSONEq(t, string(v), string(got[name]), name)
			var list []json.RawMessage
			if json.Unmarshal(v, &list) != nil || list == nil {
				continue
			}
			if slices.ContainsFunc(list, func(e json.RawMessage) bool { _, dup, ok := decoderMembers(e); return dup || !ok }) {
				continue // an element that is not an object, or repeats a name
			}
			msgs, err := loopstore.Messages("m", got[name], false)
			require.NoError(t, err, name)
			require.Len(t, msgs, len(list))
			for i := range list {
				assert.JSONEq(t, string(list[i]), string(msgs[i].Raw()))
			}
		}
	})
}

// decoderMembers reads data's top-level members with json.Decoder: ok is
// false when data is not one JSON object, dup true when a name repeats.
func decoderMembers(data []byte) (members map[string]json.RawMessage, dup, ok bool) {
	if !json.Valid(data) {
		return nil, false, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false, false
	}
	members = map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false, false
		}
		name := tok.(string)
		if _, seen := members[name]; seen {
			dup = true
		}
		members[name] = v
	}
	return members, dup, true
}
