package mcpcall_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolnexus-go/toolnexus"
	"github.com/toolnexus-go/toolnexus/approval"
	"github.com/toolnexus-go/toolnexus/internal/benchpair"
	"github.com/toolnexus-go/toolnexus/mcpcall"
	"github.com/toolnexus-go/toolnexus/park"
	"github.com/toolnexus-go/toolnexus/requeststate"
)

// deployInput is what the gated tool of BenchmarkRound takes: a few
// scalars and the files it deploys.
type deployInput struct {
	Service  string       `json:"service"`
	Env      string       `json:"env"`
	Replicas int          `json:"replicas"`
	Notes    string       `json:"notes"`
	Files    []deployFile `json:"files"`
}

// deployFile is one file of a deployInput.
type deployFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// roundSizes are the sizes of arguments BenchmarkRound sends.
var roundSizes = []struct {
	name string
	n    int
}{
	{"size=100B", 100},
	{"size=10KiB", 10 << 10},
	{"size=1MiB", 1 << 20},
}

// deployArgs returns arguments of n bytes for deployInput, as a model
// writes them: keys in no sorted order, and an escape every few bytes
// (source code in a JSON string), in files of at most 64 KiB.
func deployArgs(n int) json.RawMessage {
	const (
		line  = `\tprintln(\"hello, world\")\n`
		chunk = 64 << 10
	)
	notes := `roll out \"v2\"\tnow`
	var files []string
	build := func() string {
		return `{"service":"api","replicas":3,"env":"prod","notes":"` + notes + `","files":[` + strings.Join(files, ",") + `]}`
	}
	for {
		file := fmt.Sprintf(`{"path":"src\\cmd\\file%d.go","content":"`, len(files))
		left := n - len(build()) - len(file) - len(`"},`)
		if left < 64 {
			break
		}
		content := strings.Repeat(line, min(left, chunk)/len(line))
		files = append(files, file+content+`"}`)
	}
	for len(build()) < n-1 {
		notes += `\t`
	}
	if len(build()) < n {
		notes += "."
	}
	return json.RawMessage(build())
}

// roundRunner returns the runner, the gated tool and the call of
// BenchmarkRound: a ToolFor tool behind approval.Gate, run through a
// mcpcall.Runner with a claim store of its own.
func roundRunner(b *testing.B, args json.RawMessage) (*mcpcall.Runner, toolnexus.Tool, mcpcall.Call) {
	sealer, err := requeststate.NewSealer(requeststate.Options{Keys: [][]byte{serveKey}, Audience: "bench"})
	must(b, err)
	r, err := mcpcall.NewRunner(sealer, mcpcall.Options{Park: park.Runner{
		Store:  park.NewMemoryStore(0, 0),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}})
	must(b, err)
	deploy := toolnexus.ToolFor(func(_ context.Context, in deployInput, _ toolnexus.Answers) toolnexus.ToolResult {
		return toolnexus.Ok(fmt.Sprintf("deployed %d files to %s", len(in.Files), in.Env))
	})
	gated, err := approval.Gate(deploy, approval.Require("Deploy?"), nil)
	must(b, err)
	c := mcpcall.Call{Tool: "deploy", Arguments: args, Client: mcpcall.Client{Protocol: mcpcall.MultiRoundTrip, ElicitForm: true}}
	return r, gated, c
}

// accept is the client's answer to an approval.
var accept = json.RawMessage(`{"action":"accept"}`)

// round runs one MCP round with a state: the first call, parked on the
// approval, and the retry that answers it, which runs the tool.
func round(r *mcpcall.Runner, tool toolnexus.Tool, c mcpcall.Call) error {
	ctx := context.Background()
	res, err := r.Run(ctx, c, tool)
	if err != nil {
		return err
	}
	if res.ResultType != "input_required" || len(res.InputRequests) != 1 {
		return fmt.Errorf("first call: %s, not one input request", res.ResultType)
	}
	c.RequestState = res.RequestState
	for id := range res.InputRequests {
		c.InputResponses = map[string]json.RawMessage{id: accept}
	}
	res, err = r.Run(ctx, c, tool)
	switch {
	case err != nil:
		return err
	case res.ResultType != "complete" || res.IsError:
		return fmt.Errorf("retry: %s: %v", res.ResultType, res.Content)
	}
	return nil
}

// BenchmarkRound runs one MCP round with a state (round) of a gated
// ToolFor tool, with arguments of 100 B to 1 MiB, next to one
// json.Unmarshal of the same arguments into the tool's struct, the two
// sides alternating within the process (see benchpair). It reports the
// time per call of each (ns/toolnexus, ns/baseline), their ratio
// (toolnexus/baseline), and the bytes and allocations of each
// (B/toolnexus, allocs/toolnexus, B/baseline, allocs/baseline).
func BenchmarkRound(b *testing.B) {
	for _, s := range roundSizes {
		args := deployArgs(s.n)
		b.Run(s.name, func(b *testing.B) {
			r, tool, c := roundRunner(b, args)
			pairWithUnmarshal(b, args, func() { must(b, round(r, tool, c)) })
		})
	}
}

// BenchmarkRoundFloor runs, next to one json.Unmarshal of the arguments
// of BenchmarkRound at 100 B, the cryptography alone that a round with a
// state does whatever the code around it: the state sealed and opened
// with AES-256-GCM, the approval's tag made and checked with HMAC-SHA256
// over the arguments, the call's SHA-256 digest, and a random ID and
// nonce from crypto/rand, in the standard library's calls. Its ratio is
// the least a round can be at that size.
func BenchmarkRoundFloor(b *testing.B) {
	args := deployArgs(100)
	r, tool, c := roundRunner(b, args)
	first, err := r.Run(context.Background(), c, tool)
	must(b, err)
	state := make([]byte, base64.RawURLEncoding.DecodedLen(len(first.RequestState)))
	block, err := aes.NewCipher(serveKey[:32])
	must(b, err)
	aead, err := cipher.NewGCMWithRandomNonce(block)
	must(b, err)
	key := serveKey[:32]
	floor := func() {
		sealed := aead.Seal(nil, nil, state, nil)
		_, err := aead.Open(nil, nil, sealed, nil)
		must(b, err)
		for range 2 {
			h := hmac.New(sha256.New, key)
			h.Write(args)
			h.Sum(nil)
		}
		sha256.Sum256(args)
		var id [32]byte
		rand.Read(id[:])
	}
	b.Run("size=100B", func(b *testing.B) { pairWithUnmarshal(b, args, floor) })
}

// pairWithUnmarshal runs ours next to one json.Unmarshal of args into
// deployInput, as benchpair.Report pairs and reports them.
func pairWithUnmarshal(b *testing.B, args json.RawMessage, ours func()) {
	baseline := func() {
		var in deployInput
		must(b, json.Unmarshal(args, &in))
	}
	b.SetBytes(int64(len(args)))
	benchpair.Report(b, max(1, (1<<20)/len(args)), ours, baseline)
}

// must stops b at err.
func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

func TestDeployArgs(t *testing.T) {
	t.Parallel()
	for _, s := range roundSizes {
		args := deployArgs(s.n)
		var in deployInput
		if err := json.Unmarshal(args, &in); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if len(args) != s.n || len(in.Files) == 0 && s.n > 1<<10 {
			t.Errorf("%s: %d bytes, %d files", s.name, len(args), len(in.Files))
		}
	}
}
