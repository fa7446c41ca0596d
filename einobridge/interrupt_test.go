package einobridge_test

import (
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/compose"
	"github.com/stretchr/testify/assert"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/einobridge"
)

func TestRequests(t *testing.T) {
	t.Parallel()
	a := toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"}
	b := toolnexus.Request{ID: "b", Kind: toolnexus.KindInput, Prompt: "B?"}
	tests := []struct {
		name string
		info any
		want []toolnexus.Request
		ok   bool
	}{
		{"one", a, []toolnexus.Request{a}, true},
		{"several", []toolnexus.Request{a, b}, []toolnexus.Request{a, b}, true},
		{"none", []toolnexus.Request{}, nil, false},
		{"a pointer", &a, nil, false},
		{"another interrupt's info", "please confirm", nil, false},
		{"nil", nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := einobridge.Requests(tc.info)
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Equal(t, tc.want, got)
			}
		})
	}
}

func TestWaiting(t *testing.T) {
	t.Parallel()
	a := toolnexus.Request{ID: "a", Kind: toolnexus.KindApproval, Prompt: "A?"}
	b := toolnexus.Request{ID: "b", Kind: toolnexus.KindInput, Prompt: "B?"}
	addr := func(tool, callID string) compose.Address {
		return compose.Address{{Type: compose.AddressSegmentNode, ID: "tools"}, {Type: compose.AddressSegmentTool, ID: tool, SubID: callID}}
	}
	parent := &compose.InterruptCtx{ID: "graph", Info: a}
	got := einobridge.Waiting([]*compose.InterruptCtx{
		nil,
		parent, // not a root cause
		{ID: "i1", Address: addr("deploy", "c1"), Info: a, IsRootCause: true, Parent: parent},
		{ID: "i2", Address: addr("confirm", "c2"), Info: "someone else's", IsRootCause: true},
		{ID: "i3", Address: addr("ask", "c3"), Info: []toolnexus.Request{a, b}, IsRootCause: true},
	})
	assert.Equal(t, []einobridge.Wait{
		{InterruptID: "i1", Tool: "deploy", CallID: "c1", Request: a},
		{InterruptID: "i3", Tool: "ask", CallID: "c3", Request: a},
		{InterruptID: "i3", Tool: "ask", CallID: "c3", Request: b},
	}, got)
	assert.Nil(t, einobridge.Waiting(nil))

	b2, err := json.Marshal(got[0])
	assert.NoError(t, err)
	assert.Equal(t, `{"interruptId":"i1","tool":"deploy","callId":"c1","request":{"id":"a","kind":"approval","prompt":"A?"}}`, string(b2))
}
