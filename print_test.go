package toolnexus_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/internal/bridgetest"
	"github.com/toolnexus-go/toolnexus/internal/claims"
	"github.com/toolnexus-go/toolnexus/internal/elicitschema"
	"github.com/toolnexus-go/toolnexus/internal/leaktest"
	"github.com/toolnexus-go/toolnexus/internal/loopstore"
	"github.com/toolnexus-go/toolnexus/internal/looptest"
	"github.com/toolnexus-go/toolnexus/internal/progress"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// TestLogValueCycles checks how a value met twice is logged: once, then as
// its type and "seen above"; a slice of parts, which holds no reference,
// is logged again.
func TestLogValueCycles(t *testing.T) {
	t.Parallel()
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: "AAAA"}
	m := map[string]any{"img": img}
	m["self"] = m
	parts := []toolnexus.ContentPart{img}
	r := toolnexus.Ok("x").WithMetadata("m", m).WithMetadata("p1", parts).WithMetadata("p2", parts)
	text, js := logWithoutTime(slog.Any("r", r))
	assert.Equal(t, `level=INFO msg=m r.output=x r.isError=false r.metadata.m.img.type=image r.metadata.m.img.mimeType=image/png r.metadata.m.img.size=3 `+
		`r.metadata.m.self="map[string]interface {} (len 2, seen above)" r.metadata.p1.0.type=image r.metadata.p1.0.mimeType=image/png r.metadata.p1.0.size=3 `+
		`r.metadata.p2.0.type=image r.metadata.p2.0.mimeType=image/png r.metadata.p2.0.size=3`, text)
	assert.Equal(t, `{"level":"INFO","msg":"m","r":{"output":"x","isError":false,"metadata":{"m":{"img":{"type":"image","mimeType":"image/png","size":3},`+
		`"self":"map[string]interface {} (len 2, seen above)"},"p1":{"0":{"type":"image","mimeType":"image/png","size":3}},`+
		`"p2":{"0":{"type":"image","mimeType":"image/png","size":3}}}}}`, js)

	self := toolnexus.Ok("inner")
	self.Metadata = map[string]any{}
	self.Metadata["r"] = &self
	assert.Equal(t, `toolnexus.ToolResult{Output:"inner", IsError:false, Parts:[]toolnexus.ContentPart(nil), Metadata:map[string]interface {}{"r":&toolnexus.ToolResult{Output:"inner", IsError:false, Parts:[]toolnexus.ContentPart(nil), Metadata:map[string]interface {}(len 1)}}}`,
		self.GoString())
}

// wireValues are a value of every exported wire type, each holding data
// somewhere: base64, a data URL, raw JSON.
func wireValues(data string) []struct {
	name      string
	v         any
	jsonWhole bool // a slice: slog's JSONHandler encodes it with encoding/json
} {
	img := toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data}
	pdf := toolnexus.ContentPart{Type: toolnexus.PartFile, MIMEType: "application/pdf", Data: data, Name: "r.pdf"}
	wav := toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: data}
	r := toolnexus.Ok("hello", img, pdf, wav)
	dataURL := "data:image/png;base64," + data
	chat := r.OpenAIChatMessages("call-1", "shot")
	mcp := r.MCPCallToolResult()
	params := toolnexus.MCPElicitParams{Mode: "url", Message: "m", URL: dataURL,
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","default":"` + dataURL + `"}}}`)}
	paramsJSON, _ := json.Marshal(params)
	items := r.OpenAIResponsesOutput("call-1").Output.([]toolnexus.OpenAIResponsesContent)
	block := r.AnthropicToolResult("tu-1").Content
	block = slices.DeleteFunc(block, func(b toolnexus.AnthropicContentBlock) bool { return b.Source == nil })
	turn := toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: "call-1", Name: "shot", Result: toolnexus.Ok("hello", img)}}}
	anthropic, _ := turn.AnthropicMessage()
	gemini, _ := turn.GeminiContent()
	agents, _ := r.OpenAIAgentsToolResult("call-1", "turn-1")
	agentItems := agents.Output.([]toolnexus.OpenAIAgentsContent)
	return []struct {
		name      string
		v         any
		jsonWhole bool
	}{
		{"MCPCallToolResult", mcp, false},
		{"MCPCallToolResult with structuredContent", toolnexus.MCPCallToolResult{StructuredContent: json.RawMessage(`{"d":"` + data + `"}`)}, false},
		{"MCPCallToolResult input_required", toolnexus.MCPCallToolResult{ResultType: "input_required",
			InputRequests: map[string]toolnexus.MCPInputRequest{"r": {Method: "elicitation/create", Params: paramsJSON}}}, false},
		{"MCPInputRequest", toolnexus.MCPInputRequest{Method: "elicitation/create", Params: paramsJSON}, false},
		{"MCPElicitParams", params, false},
		{"MCPElicitResult", toolnexus.MCPElicitResult{Action: "accept", Content: map[string]any{"a": dataURL}}, false},
		{"MCPContent", mcp.Content[1], false},
		{"MCPContent resource", mcp.Content[2], false},
		{"MCPResource", *mcp.Content[2].Resource, false},
		{"AnthropicToolResultBlock", r.AnthropicToolResult("tu-1"), false},
		{"AnthropicContentBlock", block[0], false},
		{"AnthropicSource", *block[1].Source, false},
		{"[]OpenAIChatMessage", chat, true},
		{"OpenAIChatMessage", chat[1], false},
		{"OpenAIChatContentPart", chat[1].Content.([]toolnexus.OpenAIChatContentPart)[1], false},
		{"OpenAIImageURL", *chat[1].Content.([]toolnexus.OpenAIChatContentPart)[1].ImageURL, false},
		{"OpenAIFile", *chat[1].Content.([]toolnexus.OpenAIChatContentPart)[2].File, false},
		{"OpenAIInputAudio", *chat[1].Content.([]toolnexus.OpenAIChatContentPart)[3].InputAudio, false},
		{"OpenAIFile raw base64", toolnexus.OpenAIFile{FileData: data, Filename: "r.pdf"}, false},
		{"OpenAIFunctionCallOutput", r.OpenAIResponsesOutput("call-1"), false},
		{"OpenAIResponsesContent", items[len(items)-2], false},
		{"GeminiFunctionResponse", r.GeminiFunctionResponse("shot", "id-1"), false},
		{"GeminiFunctionResponsePart", r.GeminiFunctionResponse("shot", "id-1").Parts[0], false},
		{"GeminiBlob", *r.GeminiFunctionResponse("shot", "id-1").Parts[0].InlineData, false},
		{"GeminiFileData", toolnexus.GeminiFileData{MIMEType: "image/png", FileURI: dataURL}, false},
		{"Turn", turn, false},
		{"ToolCall", turn.Calls[0], false},
		{"AnthropicMessage", anthropic, false},
		{"GeminiContent", gemini, false},
		{"GeminiPart", gemini.Parts[0], false},
		{"OpenAIAgentsToolResult", agents, false},
		{"OpenAIAgentsContent", agentItems[len(agentItems)-1], false},
	}
}

// TestWireValuesJSON checks that the printing methods of the wire types
// leave their JSON as it is: byte for byte the JSON of a struct with the same
// fields and no methods.
func TestWireValuesJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range wireValues(secretPayload()[:64]) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := reflect.ValueOf(tt.v)
			if v.Kind() != reflect.Struct {
				return
			}
			fields := make([]reflect.StructField, v.NumField())
			for i := range fields {
				f := v.Type().Field(i)
				fields[i] = reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag}
			}
			plain := reflect.New(reflect.StructOf(fields)).Elem()
			for i := range fields {
				plain.Field(i).Set(v.Field(i))
			}
			want, err := json.Marshal(plain.Interface())
			require.NoError(t, err)
			got, err := json.Marshal(tt.v)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
}

// TestWireValueForms checks the forms a wire value prints and logs in: its
// fields, each payload replaced by its size and a data URL by its head.
func TestWireValueForms(t *testing.T) {
	t.Parallel()
	c := toolnexus.MCPContent{Type: "image", Data: "AAAA", MIMEType: "image/png"}
	assert.Equal(t, `{Type:"image" Data:"<3 bytes>" MIMEType:"image/png"}`, fmt.Sprintf("%v", c))
	assert.Equal(t, `{Type:"image" Data:"<3 bytes>" MIMEType:"image/png"}`, fmt.Sprintf("%d", &c))
	assert.Equal(t, `"{Type:\"image\" Data:\"<3 bytes>\" MIMEType:\"image/png\"}"`, fmt.Sprintf("%q", c))
	assert.Equal(t, `toolnexus.MCPContent{Type:"image", Text:"", Data:"<3 bytes>", MIMEType:"image/png", URI:"", Name:"", Resource:nil}`, fmt.Sprintf("%#v", c))
	text, js := logWithoutTime(slog.Any("v", c))
	assert.Equal(t, `level=INFO msg=m v.type=image v.data="<3 bytes>" v.mimeType=image/png`, text)
	assert.Equal(t, `{"level":"INFO","msg":"m","v":{"type":"image","data":"<3 bytes>","mimeType":"image/png"}}`, js)

	p := toolnexus.OpenAIChatContentPart{Type: "image_url", ImageURL: &toolnexus.OpenAIImageURL{URL: "data:image/png;base64,AAAA"}}
	assert.Equal(t, `{Type:"image_url" ImageURL:&{URL:"data:image/png;base64,…"}}`, p.String())
	text, _ = logWithoutTime(slog.Any("v", p))
	assert.Equal(t, `level=INFO msg=m v.type=image_url v.image_url.url=data:image/png;base64,…`, text)
}

// TestWireValuesThatHoldThemselves prints and logs wire values and results
// that hold each other, through maps, lists and pointers, or that share one
// map many times: every form ends, and shows no value twice.
func TestWireValuesThatHoldThemselves(t *testing.T) {
	t.Parallel()
	selfWire := func() any {
		m := map[string]any{}
		e := toolnexus.MCPElicitResult{Action: "accept", Content: m}
		m["e"] = e
		return e
	}
	resultInWire := func() any {
		m := map[string]any{}
		r := toolnexus.Ok("x")
		r.Metadata = m
		m["w"] = toolnexus.MCPElicitResult{Action: "accept", Content: map[string]any{"r": r, "p": &r}}
		return r
	}
	pointerLoop := func() any {
		var x any
		x = &x
		return toolnexus.MCPElicitResult{Action: "accept", Content: map[string]any{"p": x}}
	}
	shared := func() any {
		m := map[string]any{}
		for i := range 64 {
			m[strconv.Itoa(i)] = m
		}
		return toolnexus.MCPElicitResult{Action: "accept", Content: m}
	}
	turnLoop := func() any {
		m := map[string]any{}
		tr := toolnexus.Turn{Calls: []toolnexus.ToolCall{{ID: "c", Name: "t", Result: toolnexus.Ok("x").WithMetadata("m", m)}}}
		m["turn"] = tr
		m["self"] = m
		return tr
	}
	for name, build := range map[string]func() any{"a wire value in itself": selfWire, "a result in a wire value in it": resultInWire,
		"a pointer to itself": pointerLoop, "one map shared 64 times": shared, "a turn in its call's metadata": turnLoop} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := build()
			for _, verb := range printVerbs {
				assert.Less(t, len(fmt.Sprintf(verb, v)), 1<<16, verb)
			}
			text, js := logWithoutTime(slog.Any("v", v))
			assert.Less(t, len(text), 1<<16)
			assert.Less(t, len(js), 1<<16)
			red := toolnexus.Ok("x").WithMetadata("v", v).Redacted()
			assert.Less(t, len(fmt.Sprintf("%v %#v", red, red)), 1<<16)
		})
	}
	text, _ := logWithoutTime(slog.Any("v", selfWire()))
	assert.Equal(t, `level=INFO msg=m v.action=accept v.content.e.action=accept v.content.e.content="map[string]interface {} (len 1, seen above)"`, text)
	assert.Equal(t, `{Action:"accept" Content:map["e":{Action:"accept" Content:map[string]interface {}(len 1, seen above)}]}`, fmt.Sprint(selfWire()))
}

// modulePath is the import path of the main module, whose packages
// TestNoTypePrintsPayload finds under this directory.
const modulePath = "github.com/toolnexus-go/toolnexus"

// leakPackages are the packages of the main module with exported types,
// by import path: TestNoTypePrintsPayload finds every package of the
// module and refuses one that is not here. A new package is one more line,
// and an entry in leakTypes for each of its exported types.
var leakPackages = []string{
	modulePath,
	modulePath + "/approval",
	modulePath + "/internal/bridgetest",
	modulePath + "/internal/claims",
	modulePath + "/internal/elicitschema",
	modulePath + "/internal/loopstore",
	modulePath + "/internal/progress",
	modulePath + "/internal/looptest",
	modulePath + "/internal/leaktest",
	modulePath + "/mcpcall",
	modulePath + "/park",
	modulePath + "/requeststate",
}

// leakSpec says which fields of a type carry a payload (base64, a data URL,
// raw JSON, a Data map, keys), filled with one by TestNoTypePrintsPayload,
// and which are text shown as it is (names, ids, prompts, outputs); fields
// of numbers, booleans, times and functions, and fields that hold other
// types of the module, which have their own entry, need neither. values
// builds more values of the type, as users make them, for types whose
// fields the test cannot fill.
type leakSpec struct {
	payload, plain []string
	urls           []string // payload fields that carry one as a data URL
	values         func(data string) []any
}

// leakTypes is the entry of every exported type of the module's packages.
var leakTypes = map[reflect.Type]leakSpec{
	// Results, parts, suspensions.
	reflect.TypeFor[toolnexus.ToolResult](): {payload: []string{"Metadata"}, plain: []string{"Output"}, values: func(data string) []any {
		return []any{toolnexus.Ok("x").WithMetadata("raw", rawPayload(data)).
			WithMetadata("in", map[string]any{"raw": rawPayload(data), "list": []any{rawPayload(data)}})}
	}},
	reflect.TypeFor[toolnexus.ContentPart]():       {payload: []string{"Data"}, urls: []string{"URL"}, plain: []string{"Text", "MIMEType", "Name"}},
	reflect.TypeFor[toolnexus.PartType]():          {},
	reflect.TypeFor[toolnexus.Request]():           {payload: []string{"Data"}, plain: []string{"ID", "Kind", "Prompt", "URL", "ExpiresAt"}},
	reflect.TypeFor[toolnexus.Answer]():            {payload: []string{"Data"}, plain: []string{"ID", "Reason"}},
	reflect.TypeFor[toolnexus.Answers]():           {},
	reflect.TypeFor[toolnexus.PartReader]():        {plain: []string{"MIMEType"}},
	reflect.TypeFor[toolnexus.Tool]():              {},
	reflect.TypeFor[toolnexus.PartTooLargeError](): {},
	// The Turn.
	reflect.TypeFor[toolnexus.Turn]():     {},
	reflect.TypeFor[toolnexus.ToolCall](): {payload: []string{"Arguments"}, plain: []string{"ID", "Name", "Parked"}},
	reflect.TypeFor[toolnexus.Wait]():     {plain: []string{"CallID", "Tool"}},
	reflect.TypeFor[toolnexus.Waits]():    {},
	// The kernel, package park: a Call holds the model's arguments; a
	// Claim holds only digests.
	reflect.TypeFor[park.Runner]():   {plain: []string{"Logger", "Store", "Repeatable", "Observer"}},
	reflect.TypeFor[park.Observer](): {},
	reflect.TypeFor[park.Event]():    {plain: []string{"Kind", "Tool", "CallID", "Park", "Kinds", "Reason"}},
	reflect.TypeFor[park.Call]():     {payload: []string{"Arguments"}, plain: []string{"ID", "Tool", "Park", "Principal"}},
	reflect.TypeFor[park.Outcome]():  {plain: []string{"Park"}},
	reflect.TypeFor[park.Claim]():    {},
	reflect.TypeFor[park.Store]():    {},
	// The gate, package approval.
	reflect.TypeFor[approval.Policy]():  {},
	reflect.TypeFor[approval.Options](): {payload: []string{"Keys"}, plain: []string{"Name"}},
	// The internals: a form holds no payload of a call's; the test support
	// of the bridges holds the options of other entries, and what a test
	// logs.
	reflect.TypeFor[elicitschema.Form]():   {},
	reflect.TypeFor[claims.Memory]():       {},
	reflect.TypeFor[progress.Func]():       {},
	reflect.TypeFor[bridgetest.Config]():   {},
	reflect.TypeFor[bridgetest.Log]():      {},
	reflect.TypeFor[bridgetest.Gated]():    {},
	reflect.TypeFor[bridgetest.Scenario](): {plain: []string{"Tool", "Arguments", "Action", "Content", "Asked", "Text"}},
	reflect.TypeFor[bridgetest.Expiry]():   {plain: []string{"Name", "ExpiresAt"}},
	reflect.TypeFor[bridgetest.Clock]():    {},
	// Test support of the nested modules.
	reflect.TypeFor[looptest.Exchange](): {plain: []string{"Path", "Want", "Reply"}},
	reflect.TypeFor[looptest.Provider](): {plain: []string{"Server"}},
	reflect.TypeFor[leaktest.Values]():   {},
	reflect.TypeFor[loopstore.Message](): {plain: []string{"Role"}, values: func(data string) []any {
		return []any{loopstore.NewMessage(json.RawMessage(`{"role":"user","content":[{"type":"image","data":"`+data+`"}]}`), "user")}
	}},
	// Destinations.
	reflect.TypeFor[toolnexus.SizeLimit]():                  {plain: []string{"What"}},
	reflect.TypeFor[toolnexus.UnsupportedPart]():            {plain: []string{"Part", "Reason", "Placeholder"}},
	reflect.TypeFor[toolnexus.AnthropicToolResultBlock]():   {plain: []string{"Type", "ToolUseID"}},
	reflect.TypeFor[toolnexus.AnthropicContentBlock]():      {plain: []string{"Type", "Text", "Title"}},
	reflect.TypeFor[toolnexus.AnthropicSource]():            {payload: []string{"Data"}, urls: []string{"URL"}, plain: []string{"Type", "MediaType"}},
	reflect.TypeFor[toolnexus.AnthropicMessage]():           {plain: []string{"Role"}},
	reflect.TypeFor[toolnexus.OpenAIChatMessage]():          {plain: []string{"Role", "Content", "ToolCallID"}},
	reflect.TypeFor[toolnexus.OpenAIChatContentPart]():      {plain: []string{"Type", "Text"}},
	reflect.TypeFor[toolnexus.OpenAIImageURL]():             {urls: []string{"URL"}},
	reflect.TypeFor[toolnexus.OpenAIFile]():                 {payload: []string{"FileData"}, plain: []string{"Filename"}},
	reflect.TypeFor[toolnexus.OpenAIInputAudio]():           {payload: []string{"Data"}, plain: []string{"AudioFormat"}},
	reflect.TypeFor[toolnexus.OpenAIFunctionCallOutput]():   {plain: []string{"Type", "CallID", "Output"}},
	reflect.TypeFor[toolnexus.OpenAIResponsesContent]():     {payload: []string{"FileData"}, urls: []string{"ImageURL"}, plain: []string{"Type", "Text", "Filename", "FileURL"}},
	reflect.TypeFor[toolnexus.GeminiFunctionResponse]():     {plain: []string{"ID", "Name", "Response"}},
	reflect.TypeFor[toolnexus.GeminiFunctionResponsePart](): {},
	reflect.TypeFor[toolnexus.GeminiBlob]():                 {payload: []string{"Data"}, plain: []string{"MIMEType"}},
	reflect.TypeFor[toolnexus.GeminiFileData]():             {urls: []string{"FileURI"}, plain: []string{"MIMEType"}},
	reflect.TypeFor[toolnexus.GeminiContent]():              {plain: []string{"Role"}},
	reflect.TypeFor[toolnexus.GeminiPart]():                 {},
	reflect.TypeFor[toolnexus.OpenAIAgentsToolResult]():     {plain: []string{"Type", "CallID", "TurnID", "Error", "Output"}},
	reflect.TypeFor[toolnexus.OpenAIAgentsContent]():        {urls: []string{"ImageURL"}, plain: []string{"Type", "Text"}},
	// MCP.
	reflect.TypeFor[toolnexus.MCPCallToolResult](): {payload: []string{"StructuredContent", "RequestState"}, plain: []string{"ResultType"}},
	reflect.TypeFor[toolnexus.MCPContent]():        {payload: []string{"Data"}, plain: []string{"Type", "Text", "MIMEType", "URI", "Name"}},
	reflect.TypeFor[toolnexus.MCPResource]():       {payload: []string{"Blob"}, plain: []string{"URI", "MIMEType", "Text"}},
	reflect.TypeFor[toolnexus.MCPInputRequest]():   {payload: []string{"Params"}, plain: []string{"Method"}},
	reflect.TypeFor[toolnexus.MCPElicitParams]():   {payload: []string{"RequestedSchema"}, plain: []string{"Mode", "Message", "URL", "ElicitationID"}},
	reflect.TypeFor[toolnexus.MCPElicitResult]():   {plain: []string{"Action", "Content"}},
	// The MCP core, package mcpcall.
	reflect.TypeFor[mcpcall.Call]():    {payload: []string{"Arguments", "RequestState", "InputResponses"}, plain: []string{"Tool", "Principal"}},
	reflect.TypeFor[mcpcall.Client]():  {plain: []string{"Protocol"}},
	reflect.TypeFor[mcpcall.Error]():   {plain: []string{"Message", "Data", "Err"}},
	reflect.TypeFor[mcpcall.Options](): {},
	reflect.TypeFor[mcpcall.Runner](): {values: func(data string) []any {
		s, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte(data[:32]), []byte(data[32:64])}})
		if err != nil {
			panic(err)
		}
		r, err := mcpcall.NewRunner(s, mcpcall.Options{})
		if err != nil {
			panic(err)
		}
		return []any{r}
	}},
	// Request states, package requeststate.
	reflect.TypeFor[requeststate.Options](): {payload: []string{"Keys"}, plain: []string{"Audience"}},
	reflect.TypeFor[requeststate.Call]():    {payload: []string{"Arguments"}, plain: []string{"Tool", "Principal"}},
	reflect.TypeFor[requeststate.State]():   {payload: []string{"Opaque"}},
	reflect.TypeFor[requeststate.Sealer](): {values: func(data string) []any {
		s, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{[]byte(data[:32])}})
		if err != nil {
			panic(err)
		}
		return []any{*s}
	}},
	reflect.TypeFor[requeststate.Opened](): {plain: []string{"ID"}, values: func(data string) []any {
		s, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{bytes32}})
		if err != nil {
			panic(err)
		}
		call := requeststate.Call{Tool: "t"}
		d := map[string]any{"image": data, "messages": []any{map[string]any{"content": map[string]any{"type": "image", "data": data}}}}
		state, err := s.Seal(call, requeststate.State{Requests: []toolnexus.Request{{ID: "r", Kind: toolnexus.KindSampling, Prompt: "p", Data: d}},
			Answers: toolnexus.Answers{{ID: "a", OK: true, Data: d}}}, time.Now())
		if err != nil {
			panic(err)
		}
		st, err := s.Open(state, call, time.Now())
		if err != nil {
			panic(err)
		}
		return []any{st}
	}},
}

// bytes32 is a key for the values of leakTypes.
var bytes32 = []byte("a key of 32 bytes for the tests!")

// TestNoTypePrintsPayload is the leak test of the module, built so that no
// type escapes it: it finds every exported type of every package of the
// main module with go/parser, requires an entry in leakTypes for each and
// every payload field classified, fills the payload fields of a value of
// each (and of the module's types it holds) with data, and checks that no
// verb of fmt, with or without flags and width, no String or GoString, and
// neither handler of log/slog prints a window of it, for the value and a
// pointer to it; nor does a result holding them print it, nor keep it
// once Redacted. It runs under GOEXPERIMENT=jsonv2 too, where
// json.RawMessage has a String method.
func TestNoTypePrintsPayload(t *testing.T) {
	t.Parallel()
	data := secretPayload()[:3<<10]
	byType := map[reflect.Type][]any{}
	for _, tt := range wireValues(data) {
		byType[reflect.TypeOf(tt.v)] = append(byType[reflect.TypeOf(tt.v)], tt.v)
	}
	for _, name := range exportedTypes(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			typ, spec := leakEntry(t, name)
			checkClassified(t, typ, spec)
			var values []any
			if typ.Kind() == reflect.Struct || typ.Kind() == reflect.Slice {
				for _, form := range []string{data, "data:image/png;base64," + data} {
					v := reflect.New(typ).Elem()
					fillPayload(v, form, 0)
					values = append(values, v.Interface())
				}
			}
			values = append(values, byType[typ]...)
			if spec.values != nil {
				values = append(values, spec.values(data)...)
			}
			for _, v := range values {
				assertPrintsNoPayload(t, v, data)
			}
		})
	}
}

// exportedTypes returns the exported types of every package of the main
// module, "import/path.Name", read from their sources, and checks that
// each package is one of leakPackages.
func exportedTypes(t *testing.T) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		base := d.Name()
		if path != "." && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "node_modules") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			return filepath.SkipDir // a module of its own
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, path, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		importPath := modulePath
		if path != "." {
			importPath += "/" + filepath.ToSlash(path)
		}
		var found []string
		for _, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, decl := range f.Decls {
					g, ok := decl.(*ast.GenDecl)
					if !ok || g.Tok != token.TYPE {
						continue
					}
					for _, spec := range g.Specs {
						if ts := spec.(*ast.TypeSpec); ts.Name.IsExported() {
							found = append(found, importPath+"."+ts.Name.Name)
						}
					}
				}
			}
		}
		if len(found) > 0 && !slices.Contains(leakPackages, importPath) {
			t.Errorf("package %s has exported types: add it to leakPackages, and its types to leakTypes", importPath)
		}
		names = append(names, found...)
		return nil
	})
	require.NoError(t, err)
	require.Contains(t, names, modulePath+".ToolResult", "the walk found the package")
	slices.Sort(names)
	return names
}

// leakEntry returns the type of leakTypes named name, import path and
// name, and its entry, failing the test when it has none.
func leakEntry(t *testing.T, name string) (reflect.Type, leakSpec) {
	t.Helper()
	for typ, spec := range leakTypes {
		if typ.PkgPath()+"."+typ.Name() == name {
			return typ, spec
		}
	}
	t.Fatalf("%s has no entry in leakTypes: classify its fields that may carry a payload", name)
	return nil, leakSpec{}
}

// checkClassified checks that every exported field of typ, a struct, that
// can hold text is classified by spec as payload or plain, or holds types
// of the module, which have their own entries.
func checkClassified(t *testing.T, typ reflect.Type, spec leakSpec) {
	t.Helper()
	if typ.Kind() != reflect.Struct {
		assert.Empty(t, spec.payload, "a %s has no fields", typ.Kind())
		return
	}
	for _, name := range slices.Concat(spec.payload, spec.urls, spec.plain) {
		_, ok := typ.FieldByName(name)
		assert.True(t, ok, "%s has no field %s", typ, name)
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() || slices.Contains(slices.Concat(spec.payload, spec.urls, spec.plain), f.Name) || !holdsText(f.Type) || holdsModuleTypes(f.Type) {
			continue
		}
		t.Errorf("field %s of %s, a %s, is neither payload nor plain in leakTypes", f.Name, typ, f.Type)
	}
}

// holdsText reports whether a value of t can hold text: a string, bytes,
// an interface, or a map, slice, array or pointer of them.
func holdsText(t reflect.Type) bool {
	if t == reflect.TypeFor[time.Time]() {
		return false
	}
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return holdsText(t.Elem())
	case reflect.Map:
		return holdsText(t.Key()) || holdsText(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsText(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// holdsModuleTypes reports whether t is, or is a map, slice, array or
// pointer of, a type with an entry in leakTypes.
func holdsModuleTypes(t reflect.Type) bool {
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Pointer || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	_, ok := leakTypes[t]
	return ok
}

// fillPayload sets every payload field of v, and of the module's values it
// holds, to data in a form its type takes: data itself in a string, raw
// JSON holding it, keys of its bytes, a Data map holding it in a part and
// a data URL; and every plain text field to "plain".
func fillPayload(v reflect.Value, data string, depth int) {
	if depth > 4 {
		return
	}
	spec, ok := leakTypes[v.Type()]
	if !ok || v.Kind() != reflect.Struct && v.Kind() != reflect.Slice {
		return
	}
	if v.Kind() == reflect.Slice { // Answers
		e := reflect.New(v.Type().Elem()).Elem()
		fillPayload(e, data, depth+1)
		v.Set(reflect.Append(v, e))
		return
	}
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		switch {
		case !f.IsExported():
		case slices.Contains(spec.payload, f.Name):
			fv.Set(payloadValue(fv.Type(), data))
		case slices.Contains(spec.urls, f.Name):
			fv.Set(reflect.ValueOf("data:image/png;base64," + data).Convert(fv.Type()))
		case slices.Contains(spec.plain, f.Name):
			if fv.Kind() == reflect.String {
				fv.SetString("plain")
			}
		case holdsModuleTypes(f.Type):
			fv.Set(moduleValue(f.Type, data, depth+1))
		}
	}
}

// payloadValue returns a value of type t holding data.
func payloadValue(t reflect.Type, data string) reflect.Value {
	raw := []byte(`{"data":"` + data + `"}`)
	var v any
	switch t {
	case reflect.TypeFor[json.RawMessage](), reflect.TypeFor[[]byte]():
		v = raw
	case reflect.TypeFor[[][]byte]():
		v = [][]byte{[]byte(data[:64])}
	case reflect.TypeFor[map[string]any]():
		v = map[string]any{
			"part":  map[string]any{"type": "image", "mimeType": "image/png", "data": data},
			"url":   "data:image/png;base64," + data,
			"image": toolnexus.ContentPart{Type: toolnexus.PartImage, MIMEType: "image/png", Data: data},
		}
	case reflect.TypeFor[map[string]json.RawMessage]():
		v = map[string]json.RawMessage{"r": raw}
	}
	if v == nil {
		if t.Kind() != reflect.String {
			panic(fmt.Sprintf("no payload of type %s", t))
		}
		return reflect.ValueOf(data).Convert(t)
	}
	return reflect.ValueOf(v).Convert(t)
}

// moduleValue returns a value of t, a type of the module or a map, slice,
// array or pointer of one, whose payloads hold data.
func moduleValue(t reflect.Type, data string, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		v.Elem().Set(moduleValue(t.Elem(), data, depth))
	case reflect.Slice:
		v.Set(reflect.Append(v, moduleValue(t.Elem(), data, depth)))
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(reflect.ValueOf("k").Convert(t.Key()), moduleValue(t.Elem(), data, depth))
	default:
		fillPayload(v, data, depth)
	}
	return v
}

// assertPrintsNoPayload checks every way v and a pointer to it may be
// printed or logged for a window of data, its hex or its bytes in decimal,
// and a result holding them, printed and Redacted.
func assertPrintsNoPayload(t *testing.T, v any, data string) {
	t.Helper()
	ptr := reflect.New(reflect.TypeOf(v))
	ptr.Elem().Set(reflect.ValueOf(v))
	windows := payloadWindows(data)
	check := func(how, out string) {
		t.Helper()
		for _, w := range windows {
			if strings.Contains(out, w) {
				i := max(strings.Index(out, w)-150, 0)
				t.Errorf("%s prints the payload: …%.300q", how, out[i:])
				return
			}
		}
	}
	for _, x := range []any{v, ptr.Interface()} {
		for _, verb := range append(slices.Clone(printVerbs), "%+s", "% x", "%#x", "%08v", "%-8d") {
			check(verb, fmt.Sprintf(verb, x))
		}
		check("Sprint", fmt.Sprint(x))
		check("Sprintln", fmt.Sprintln(x))
		if s, ok := x.(fmt.Stringer); ok {
			check("String", s.String())
		}
		if s, ok := x.(fmt.GoStringer); ok {
			check("GoString", s.GoString())
		}
		text, js := logWithoutTime(slog.Any("v", x), slog.Group("g", slog.Any("v", x)))
		check("slog text", text)
		check("slog JSON", js)
	}
	r := toolnexus.Ok("x").WithMetadata("v", v).WithMetadata("p", ptr.Interface()).
		WithMetadata("raw", rawPayload(data)).
		WithMetadata("marshaler", wrapped{toolnexus.ContentPart{Type: toolnexus.PartAudio, MIMEType: "audio/wav", Data: data}})
	text, js := logWithoutTime(slog.Any("r", r))
	check("a result's slog text", text)
	check("a result's slog JSON", js)
	check("a result's %#v", fmt.Sprintf("%#v", r))
	if red, err := json.Marshal(r.Redacted()); err == nil {
		check("a result Redacted", string(red))
	}
}

// rawPayload is raw JSON holding data as a part's data, in a data URL and
// in a part of a list, as a loop stores a message.
func rawPayload(data string) json.RawMessage {
	return json.RawMessage(`{"role":"user","content":[{"type":"image","mimeType":"image/png","data":"` + data + `"}],` +
		`"url":"data:image/png;base64,` + data + `","part":{"type":"file","mimeType":"application/pdf","url":"data:application/pdf;base64,` + data + `"}}`)
}

// payloadWindows are windows of data as a leak shows them: as they are,
// in hex, and as the decimal bytes fmt prints a byte slice with.
func payloadWindows(data string) []string {
	var ws []string
	for _, at := range []int{0, 32, len(data) / 2, len(data) - 24} {
		w := data[at : at+16]
		ws = append(ws, w, hex.EncodeToString([]byte(w)), strings.Trim(fmt.Sprint([]byte(w)), "[]"))
	}
	return ws
}
