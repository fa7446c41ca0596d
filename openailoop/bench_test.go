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
	"github.com/toolnexus-go/toolnexus/openailoop"
)

// BenchmarkStoreTurn stores and resumes one turn of a conversation of 10
// and of 1,000 messages (rounds of the screenshot tool, then the model's
// parked deploy), in the ways a host can store it. On Chat Completions,
// form=apart stores the messages the turn appends, each on its own, and
// replaces the parked turn, then resumes from the turn and the model's
// message alone ([openailoop.ResumeChat]) and stores what that appends;
// form=one marshals the whole conversation, resumes it with
// [openailoop.ResumeChatConversation] and marshals it again. On
// Responses, whose history the API keeps, form=one does the same with a
// [openailoop.ResponsesConversation], and form=apart stores the turn and
// the function calls and resumes with [openailoop.ResumeResponses].
// Running the model's calls is not counted: it is the same in all.
func BenchmarkStoreTurn(b *testing.B) {
	ctx := context.Background()
	shot := `{"id":"chatcmpl-01","object":"chat.completion","created":0,"model":"gpt-5.5","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_01","type":"function","function":{"name":"screenshot","arguments":"{}"}}]}}]}`
	deploy := strings.Replace(chatToolCallsJSON, `{"id":"call_01","type":"function","function":{"name":"screenshot","arguments":"{}"}},`, "", 1)
	for _, n := range []int{10, 1000} {
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

		b.Run(fmt.Sprintf("api=chat/form=apart/messages=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
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
		})
		b.Run(fmt.Sprintf("api=chat/form=one/messages=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, err := openailoop.ResumeChatConversation(ctx, mustMarshal(b, parked), 0, answer, tools)
				if err != nil || !got.Ready() {
					b.Fatal(err)
				}
				mustMarshal(b, got)
			}
		})
	}

	// On Responses a conversation of n messages is the response that
	// follows them: what is stored is the same at 10 and at 1,000.
	for _, n := range []int{10, 1000} {
		reply := decode[responses.Response](b, strings.Replace(responsesCallsJSON, `"resp_01"`, fmt.Sprintf(`"resp_%04d"`, n), 1))
		c, err := responsesPrompted().Run(ctx, reply, tools)
		if err != nil {
			b.Fatal(err)
		}
		answer := c.Turn.Waiting()[0].Request.Resolve(nil)
		b.Run(fmt.Sprintf("api=responses/form=apart/messages=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				calls := mustMarshal(b, c.FunctionCalls)
				done, input, err := openailoop.ResumeResponses(ctx, mustMarshal(b, c.Turn), calls, answer, tools)
				if err != nil || !done.Complete() || len(input) == 0 {
					b.Fatal(err)
				}
				mustMarshal(b, input)
			}
		})
		b.Run(fmt.Sprintf("api=responses/form=one/messages=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, err := openailoop.ResumeResponsesConversation(ctx, mustMarshal(b, c), 0, answer, tools)
				if err != nil || !got.Ready() {
					b.Fatal(err)
				}
				mustMarshal(b, got)
			}
		})
	}
}

// mustMarshal returns v's JSON.
func mustMarshal(b *testing.B, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
