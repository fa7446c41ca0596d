package openailoop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/toolnexus-go/toolnexus/internal/benchpair"
	"github.com/toolnexus-go/toolnexus/openailoop"
)

// BenchmarkTurnSplit is issue 43's goal for a conversation: it stores and
// resumes one turn of a conversation of 1,000 messages (the toolnexus
// side) next to the same at 10 messages (the baseline), the two
// alternating within the process, so that toolnexus/baseline is what a
// turn at 1,000 costs over one at 10 (goal: at most 2), on Chat
// Completions and on Responses. The conversation is stored split, as
// [chatTurn] and [responsesTurn] do it.
func BenchmarkTurnSplit(b *testing.B) {
	for _, api := range turnAPIs {
		b.Run(api.name, func(b *testing.B) {
			benchpair.Sizes(b, 16, 1000, 10, func(n int) func() { split, _ := api.turn(b, n); return split })
		})
	}
}

// BenchmarkTurnOneValue is BenchmarkTurnSplit with the conversation
// stored as one value, the form kept for hosts that want it: on Chat
// Completions its cost is linear in the messages, and the goal does not
// hold it.
func BenchmarkTurnOneValue(b *testing.B) {
	for _, api := range turnAPIs {
		b.Run(api.name, func(b *testing.B) {
			benchpair.Sizes(b, 2, 1000, 10, func(n int) func() { _, one := api.turn(b, n); return one })
		})
	}
}

// turnAPIs are the API shapes of BenchmarkTurnSplit and
// BenchmarkTurnOneValue.
var turnAPIs = []struct {
	name string
	turn func(b *testing.B, n int) (split, one func())
}{{"api=chat", chatTurn}, {"api=responses", responsesTurn}}

// chatTurn returns one store and resume of a turn of a Chat Completions
// conversation of n messages (rounds of the screenshot tool, then the
// model's parked deploy) in each of the two ways a host can store it.
// split stores the messages the turn appends, each on its own, and
// replaces the parked turn, then resumes from the turn and the model's
// message alone ([openailoop.ResumeChat]) and stores what that appends;
// one marshals the whole conversation, resumes it with
// [openailoop.ResumeChatConversation] and marshals it again. Running the
// model's calls is not counted: it is the same in both.
func chatTurn(b *testing.B, n int) (split, one func()) {
	ctx := context.Background()
	shot := `{"id":"chatcmpl-01","object":"chat.completion","created":0,"model":"gpt-5.5","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_01","type":"function","function":{"name":"screenshot","arguments":"{}"}}]}}]}`
	deploy := strings.Replace(chatToolCallsJSON, `{"id":"call_01","type":"function","function":{"name":"screenshot","arguments":"{}"}},`, "", 1)
	c := chatPrompted()
	var err error
	for len(c.Messages)+3 <= n-1 { // a round is the call, its tool message and a user message with its image
		if c, err = c.Run(ctx, decode[openai.ChatCompletion](b, shot), tools); err != nil {
			b.Fatal(err)
		}
	}
	for len(c.Messages)+2 <= n-1 {
		c.Messages = append(c.Messages, openai.AssistantMessage("Here it is."), openai.UserMessage("Thanks."))
	}
	if len(c.Messages) != n-1 {
		b.Fatalf("%d messages before the reply, want %d", len(c.Messages), n-1)
	}
	turn, more, err := openailoop.RunChat(ctx, decode[openai.ChatCompletion](b, deploy), tools)
	if err != nil {
		b.Fatal(err)
	}
	parked := openailoop.ChatConversation{Messages: append(slices.Clone(c.Messages), more...), Turn: turn}
	answer := turn.Waiting()[0].Request.Resolve(nil)
	rows := make([][]byte, len(c.Messages), n+8) // the host's store: a row per message
	for i, m := range c.Messages {
		rows[i] = mustMarshal(b, m)
	}
	split = func() {
		rows = rows[:len(c.Messages)]
		for _, m := range more {
			rows = append(rows, mustMarshal(b, m))
		}
		done, reply, err := openailoop.ResumeChat(ctx, mustMarshal(b, turn), rows[len(rows)-1], answer, tools)
		if err != nil || !done.Complete() || len(reply) != 1 {
			b.Fatal(err)
		}
		for _, m := range reply {
			rows = append(rows, mustMarshal(b, m))
		}
	}
	one = func() {
		got, err := openailoop.ResumeChatConversation(ctx, mustMarshal(b, parked), 0, answer, tools)
		if err != nil || !got.Ready() {
			b.Fatal(err)
		}
		mustMarshal(b, got)
	}
	return split, one
}

// responsesTurn is chatTurn on Responses, whose history the API keeps: a
// conversation of n messages is the response that follows them, so what
// is stored is the same at 10 and at 1,000. split stores the turn and the
// function calls and resumes with [openailoop.ResumeResponses]; one does
// as chatTurn's with a [openailoop.ResponsesConversation].
func responsesTurn(b *testing.B, n int) (split, one func()) {
	ctx := context.Background()
	reply := decode[responses.Response](b, strings.Replace(responsesCallsJSON, `"resp_01"`, fmt.Sprintf(`"resp_%04d"`, n), 1))
	c, err := responsesPrompted().Run(ctx, reply, tools)
	if err != nil {
		b.Fatal(err)
	}
	answer := c.Turn.Waiting()[0].Request.Resolve(nil)
	split = func() {
		calls := mustMarshal(b, c.FunctionCalls)
		done, input, err := openailoop.ResumeResponses(ctx, mustMarshal(b, c.Turn), calls, answer, tools)
		if err != nil || !done.Complete() || len(input) == 0 {
			b.Fatal(err)
		}
		mustMarshal(b, input)
	}
	one = func() {
		got, err := openailoop.ResumeResponsesConversation(ctx, mustMarshal(b, c), 0, answer, tools)
		if err != nil || !got.Ready() {
			b.Fatal(err)
		}
		mustMarshal(b, got)
	}
	return split, one
}

// mustMarshal returns v's JSON.
func mustMarshal(b *testing.B, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
